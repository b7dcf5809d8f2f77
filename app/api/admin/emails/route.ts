import { listEmailLogs } from "@/lib/admin/list-email-logs";
import { emailsListResponse, emailsQuery } from "@/lib/admin/schemas";
import { methods, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    { auth: "operator", rateLimit: "admin", query: emailsQuery, summary: "The email log with delivery events, newest first", tags: ["admin"], response: emailsListResponse },
    ({ query }) => listEmailLogs(query),
  ),
});
