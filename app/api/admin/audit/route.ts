import { listAdminActions } from "@/lib/admin/list-admin-actions";
import { auditListResponse, auditQuery } from "@/lib/admin/schemas";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: operatorRoute(
    { query: auditQuery, summary: "The audit log of operator writes, newest first", response: auditListResponse },
    ({ query }) => listAdminActions(query),
  ),
});
