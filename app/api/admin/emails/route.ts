import { listEmailLogs } from "@/lib/admin/list-email-logs";
import { emailsListResponse, emailsQuery } from "@/lib/admin/schemas";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: operatorRoute(
    { query: emailsQuery, summary: "The email log with delivery events, newest first", response: emailsListResponse },
    ({ query }) => listEmailLogs(query),
  ),
});
