import { z } from "zod";
import { getUsageReport, usageReportCsv, USAGE_GROUPS, USAGE_STACKS } from "@/lib/credits/get-usage-report";
import { usageReportResponse } from "@/lib/credits/schemas";
import { methods, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

const date = z.string().max(40).optional();

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      account: "member",
      rateLimit: "reports",
      query: z.object({
        group_by: z.enum(USAGE_GROUPS, { error: `must be ${USAGE_GROUPS.join(", ")}` }).default("day"),
        stack: z
          .enum(USAGE_STACKS, { error: "must be model or key" })
          .optional()
          .meta({ description: "with group_by=day: a second dimension (a stacked chart)" }),
        from: date.meta({ description: "ISO 8601 date or date-time (UTC), inclusive; default the start of this month" }),
        to: date.meta({ description: "ISO 8601, exclusive; default the start of next month; at most 366 days after from" }),
        tz: z.string().max(64).optional().meta({ description: "IANA time zone of the day buckets (e.g. Europe/Paris); default UTC" }),
        format: z.enum(["json", "csv"], { error: "must be json or csv" }).default("json"),
      }),
      summary:
        "Credits spent in a period, grouped by day (in a time zone), model, API key, request tag, member or end user (JSON or CSV), with this cycle's projection",
      description:
        "The account the session acts for (an organisation's member who is not an admin: their own spend). Tags are those of /v1 calls' X-Request-Tags header. `projection`: credits spent since the last allocation reset and, at that pace, by the cycle's end, against the allocation.",
      tags: ["credits"],
      produces: ["application/json", "text/csv"],
      response: usageReportResponse,
    },
    async ({ account, query }) => {
      const report = await getUsageReport({
        accountId: account.id,
        memberId: account.kind === "organisation" && account.role === "member" ? account.memberId : null,
        groupBy: query.group_by,
        stack: query.stack ?? null,
        from: query.from,
        to: query.to,
        timeZone: query.tz,
      });
      if (query.format !== "csv") return report;
      return new Response(usageReportCsv(report), {
        headers: {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": `attachment; filename="usage-${report.groupBy}-${report.from.slice(0, 10)}.csv"`,
          "cache-control": "no-store",
        },
      });
    },
  ),
});
