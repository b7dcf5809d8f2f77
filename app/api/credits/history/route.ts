import { z } from "zod";
import { listCreditHistory } from "@/lib/credits";
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
        ctx.addIssue({ code: "custom", message: hi === Number.MAX_SAFE_INTEGER ? `must be an integer >= ${min}` : `must be an integer from ${min} to ${hi}` });
        return z.NEVER;
      }
      return n;
    });

const thisYear = () => new Date().getUTCFullYear();

const query = z.object({
  limit: intParam(1, () => 100, () => 50, "1 to 100, default 50"),
  offset: intParam(0, () => Number.MAX_SAFE_INTEGER, () => 0, ">= 0, default 0"),
  year: intParam(2000, () => thisYear() + 1, thisYear, "2000 to the current year + 1, default the current year"),
});


export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      rateLimit: "api",
      cache: "privateMinute",
      query,
      summary: "Credit transactions of one year, newest first",
      tags: ["credits"],
      response: creditHistoryResponse,
    },
    ({ user, query }) => listCreditHistory(user.id, query),
  ),
});
