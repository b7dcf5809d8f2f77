import { z } from "zod";
import { getOrganisationUsage, usageCsv } from "@/lib/organisations/get-organisation-usage";
import { organisationUsageResponse } from "@/lib/organisations/schemas";
import { orgRoute } from "@/lib/http/account-routes";
import { csvResponse } from "@/lib/http/respond";
import { methods } from "@/lib/http/route";

export const dynamic = "force-dynamic";

const date = z.string().max(40).optional();

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: orgRoute(
    {
      rateLimit: "reports",
      query: z.object({
        from: date.meta({ description: "ISO 8601 date or date-time (UTC), inclusive; default the start of this month" }),
        to: date.meta({ description: "ISO 8601, exclusive; default the start of next month; at most 366 days after from" }),
        format: z.enum(["json", "csv"], { error: "must be json or csv" }).default("json"),
      }),
      summary: "Spend of an organisation's wallet by member, by key and by model for a period (JSON or CSV)",
      description:
        "Every charge (settled, and reserved ones in flight) with what it cost upstream. The owner and admins see every member's spend (scope organisation); a member sees their own (scope member).",
      produces: ["application/json", "text/csv"],
      response: organisationUsageResponse,
    },
    async ({ user, params, query }) => {
      const usage = await getOrganisationUsage(params.id, user.id, query);
      if (query.format !== "csv") return usage;
      return csvResponse(usageCsv(usage), `organisation-usage-${usage.from.slice(0, 10)}.csv`);
    },
  ),
});
