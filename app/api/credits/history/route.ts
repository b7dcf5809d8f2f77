import { z } from "zod";
import { exportCreditHistory, listCreditHistory } from "@/lib/credits";
import { csvResponse } from "@/lib/http/respond";
import { methods, route } from "@/lib/http/route";
import { creditHistoryResponse } from "@/lib/credits/schemas";

export const dynamic = "force-dynamic";

/** An integer query parameter within [min, max()] (max evaluated per request: the year bound moves). */
const intParam = (min: number, max: () => number, fallback: () => number, doc: string) =>
  z
    .string()
    .optional()
    .meta({ type: "integer", minimum: min, description: doc })
    .transform((raw, ctx) => {
      if (raw === undefined) return fallback();
      const hi = max();
      const n = /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
      if (!Number.isSafeInteger(n) || n < min || n > hi) {
        ctx.addIssue({
          code: "custom",
          message: hi === Number.MAX_SAFE_INTEGER ? `must be an integer >= ${min}` : `must be an integer from ${min} to ${hi}`,
        });
        return z.NEVER;
      }
      return n;
    });

const thisYear = () => new Date().getUTCFullYear();

const query = z.object({
  limit: intParam(
    1,
    () => 100,
    () => 50,
    "1 to 100, default 50",
  ),
  offset: intParam(
    0,
    () => Number.MAX_SAFE_INTEGER,
    () => 0,
    ">= 0, default 0",
  ),
  year: intParam(2000, () => thisYear() + 1, thisYear, "2000 to the current year + 1, default the current year"),
  format: z
    .enum(["json", "csv"], { error: "must be json or csv" })
    .default("json")
    .meta({ description: "csv: the whole year as a CSV file (limit and offset ignored)" }),
});

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      account: "admin",
      rateLimit: "api",
      cache: "privateMinute",
      query,
      summary: "Credit transactions of one year, newest first (JSON pages, or the whole year as CSV)",
      description:
        "Each AI call's rows carry in `metadata`: model, promptTokens, cachedPromptTokens, completionTokens (or images, audioSeconds), costMicros (provider cost, USD millionths) and credits. `format=csv` answers text/csv with one line per row and those fields as columns.",
      tags: ["credits"],
      produces: ["application/json", "text/csv"],
      response: creditHistoryResponse,
    },
    ({ account, query }) => {
      if (query.format === "csv") {
        return csvResponse(exportCreditHistory(account.id, query.year), `credits-${query.year}.csv`);
      }
      return listCreditHistory(account.id, query);
    },
  ),
});
