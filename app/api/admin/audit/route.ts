import { listAdminActions } from "@/lib/admin/list-admin-actions";
import { auditListResponse, auditQuery } from "@/lib/admin/schemas";
import { methods, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    { auth: "operator", rateLimit: "admin", query: auditQuery, summary: "The audit log of operator writes, newest first", tags: ["admin"], response: auditListResponse },
    ({ query }) => listAdminActions(query),
  ),
});
