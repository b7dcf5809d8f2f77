import { getOrganisationAuditForOperator } from "@/lib/admin/get-organisation-audit";
import { auditCsv } from "@/lib/audit/list-organisation-events";
import { auditQuery, auditResponse } from "@/lib/organisations/schemas";
import { csvResponse } from "@/lib/http/respond";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: operatorRoute(
    {
      query: auditQuery,
      summary: "An organisation's audit log, as its owner and admins see it (also for one its owner deleted)",
      errors: [400, 404],
      response: auditResponse,
      produces: ["application/json", "text/csv"],
    },
    async ({ params, query }) => {
      const { format, ...filters } = query;
      const page = await getOrganisationAuditForOperator(params.id, filters);
      if (format !== "csv") return page;
      return csvResponse(auditCsv(page.events), `organisation-audit-${params.id}.csv`, page.nextCursor);
    },
  ),
});
