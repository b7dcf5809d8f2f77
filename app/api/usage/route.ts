import { z } from "zod";
import {
  DEFAULT_USAGE_ROWS,
  getUsageReport,
  MAX_USAGE_ROWS,
  usageReportCsv,
  USAGE_GROUPS,
  USAGE_STACKS,
} from "@/lib/credits/get-usage-report";
import { usageReportResponse } from "@/lib/credits/schemas";
import { csvResponse } from "@/lib/http/respond";
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
        metadata_key: z
          .string()
          .min(1, "must not be empty")
          .max(64, "must be at most 64 characters")
          .optional()
          .meta({ description: "with group_by=metadata (required there): the /v1 request metadata key whose values are the groups" }),
        limit: z.coerce
          .number({ error: "must be a number" })
          .int("must be a whole number")
          .min(1, "must be at least 1")
          .max(MAX_USAGE_ROWS, `must be at most ${MAX_USAGE_ROWS}`)
          .default(DEFAULT_USAGE_ROWS)
          .meta({ description: `rows per page (default ${DEFAULT_USAGE_ROWS}, at most ${MAX_USAGE_ROWS})` }),
        cursor: z.string().max(64).optional().meta({ description: "the previous page's nextCursor" }),
        format: z.enum(["json", "csv"], { error: "must be json or csv" }).default("json"),
      }),
      summary:
        "Credits and tokens spent in a period, grouped by day (in a time zone), model, API key, request tag, member, end user or a request metadata key (JSON or CSV, paged), with this cycle's projection",
      description:
        "The account the session acts for (an organisation's member who is not an admin: their own spend). Tags are those of /v1 calls' X-Request-Tags header. Pages of `limit` rows: `nextCursor` (CSV: the X-Next-Cursor header) continues; `total` is over every page. `projection`: credits spent since the last allocation reset and, at that pace, by the cycle's end, against the allocation.",
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
        metadataKey: query.metadata_key,
        limit: query.limit,
        cursor: query.cursor,
      });
      if (query.format !== "csv") return report;
      return csvResponse(usageReportCsv(report), `usage-${report.groupBy}-${report.from.slice(0, 10)}.csv`, report.nextCursor);
    },
  ),
});
