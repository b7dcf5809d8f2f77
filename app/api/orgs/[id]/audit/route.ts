import { auditCsv } from "@/lib/audit/list-organisation-events";
import { getOrganisationAudit } from "@/lib/organisations/get-organisation-audit";
import { auditQuery, auditResponse } from "@/lib/organisations/schemas";
import { orgRoute } from "@/lib/http/account-routes";
import { csvResponse } from "@/lib/http/respond";
import { methods } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: orgRoute(
    {
      // A page of indexed rows (at most 500) of an organisation one administers: no request limit, as members.
      rateLimit: null,
      query: auditQuery,
      summary:
        "An organisation's audit log: every role, cap, model rule, key, invitation, ownership and wallet change, who made it and when",
      description:
        "Owner and admins (a member: 403). Newest first, in pages (nextCursor; CSV: the X-Next-Cursor header), optionally one action or family and a period.",
      errors: [400],
      produces: ["application/json", "text/csv"],
      response: auditResponse,
    },
    async ({ user, params, query }) => {
      const { format, ...filters } = query;
      const page = await getOrganisationAudit(params.id, user.id, filters);
      if (format !== "csv") return page;
      return csvResponse(auditCsv(page.events), "organisation-audit.csv", page.nextCursor);
    },
  ),
});
