import type { z } from "zod";
import { pricingSettings } from "@/lib/ai/pricing/pricing-settings";
import { db } from "@/lib/db/client";
import { AppError, requireUuids } from "@/lib/errors";
import type { usageReportResponse } from "./schemas";

type UsageReport = z.infer<typeof usageReportResponse>;

interface Row {
  key: string | null;
  email?: string | null;
  calls: bigint | number;
  credits: bigint | number | null;
  cost_micros: bigint | number | null;
  prompt_tokens: bigint | number | null;
  completion_tokens: bigint | number | null;
  uncollected: bigint | number | null;
  below_cost: bigint | number | null;
}

const DAY = 24 * 3600_000;
const MAX_DAYS = 366;

/**
 * AI usage and what it cost upstream over a period (UTC days, `to` inclusive), per model and per
 * user (the 50 who cost the most), with the value of the credits charged (credits x the credit's
 * value) and the margin (value - provider cost), the credits settlements could not collect and the
 * calls sold below cost (both zero when every quote is the upper bound it must be). From the settled
 * charges, whose rows record the model, tokens, provider cost and final credits.
 */
export async function getUsageReport(input: { from?: string; to?: string; userId?: string }): Promise<UsageReport> {
  const today = new Date(new Date().toISOString().slice(0, 10));
  const to = input.to ? parseDay(input.to, "to") : today;
  const from = input.from ? parseDay(input.from, "from") : new Date(to.getTime() - 29 * DAY);
  if (from > to) throw new AppError("validation_failed", "Invalid query: from must not be after to", { param: "from" });
  if ((to.getTime() - from.getTime()) / DAY >= MAX_DAYS)
    throw new AppError("validation_failed", `Invalid query: the period may be at most ${MAX_DAYS} days`, { param: "from" });
  if (input.userId !== undefined) requireUuids("User", input.userId);
  const end = new Date(to.getTime() + DAY);
  const user = input.userId ?? null;
  const prisma = await db();
  const creditValueUsd = pricingSettings().creditValueUsd;
  const [byModel, byUser] = await Promise.all([
    prisma.$queryRaw<Row[]>`
      SELECT COALESCE(o.model, 'unknown') AS key, COUNT(*) AS calls, SUM(o.amount) AS credits, SUM(o.cost_micros) AS cost_micros,
             SUM((o.details->'metadata'->>'promptTokens')::bigint) AS prompt_tokens,
             SUM((o.details->'metadata'->>'completionTokens')::bigint) AS completion_tokens,
             SUM((o.details->>'uncollected')::bigint) AS uncollected,
             COUNT(*) FILTER (WHERE o.amount * ${creditValueUsd}::float8 * 1000000 < o.cost_micros) AS below_cost
      FROM credit_operations o
      WHERE o.kind = 'charge' AND o.status = 'settled' AND o.created_at >= ${from} AND o.created_at < ${end}
        AND (${user}::text IS NULL OR o.user_id = ${user}::text)
      GROUP BY 1 ORDER BY SUM(o.cost_micros) DESC NULLS LAST, 1`,
    prisma.$queryRaw<Row[]>`
      SELECT o.user_id AS key, MAX(u.email) AS email, COUNT(*) AS calls, SUM(o.amount) AS credits, SUM(o.cost_micros) AS cost_micros,
             SUM((o.details->'metadata'->>'promptTokens')::bigint) AS prompt_tokens,
             SUM((o.details->'metadata'->>'completionTokens')::bigint) AS completion_tokens,
             SUM((o.details->>'uncollected')::bigint) AS uncollected,
             COUNT(*) FILTER (WHERE o.amount * ${creditValueUsd}::float8 * 1000000 < o.cost_micros) AS below_cost
      FROM credit_operations o LEFT JOIN users u ON u.id = o.user_id
      WHERE o.kind = 'charge' AND o.status = 'settled' AND o.created_at >= ${from} AND o.created_at < ${end}
        AND (${user}::text IS NULL OR o.user_id = ${user}::text)
      GROUP BY 1 ORDER BY SUM(o.cost_micros) DESC NULLS LAST, 1 LIMIT 50`,
  ]);
  const money = (r: Row) => {
    const credits = Number(r.credits ?? 0);
    const costUsd = Number(r.cost_micros ?? 0) / 1e6;
    const soldUsd = credits * creditValueUsd;
    const figures = {
      calls: Number(r.calls),
      credits,
      promptTokens: Number(r.prompt_tokens ?? 0),
      completionTokens: Number(r.completion_tokens ?? 0),
      costUsd,
      soldUsd,
    };
    return {
      ...figures,
      marginUsd: soldUsd - costUsd,
      uncollectedCredits: Number(r.uncollected ?? 0),
      belowCostCalls: Number(r.below_cost ?? 0),
    };
  };
  const models = byModel.map((r) => ({ model: r.key ?? "unknown", ...money(r) }));
  const totals = models.reduce(
    (t, m) => ({
      calls: t.calls + m.calls,
      credits: t.credits + m.credits,
      costUsd: t.costUsd + m.costUsd,
      soldUsd: t.soldUsd + m.soldUsd,
      marginUsd: t.marginUsd + m.marginUsd,
      uncollectedCredits: t.uncollectedCredits + m.uncollectedCredits,
      belowCostCalls: t.belowCostCalls + m.belowCostCalls,
    }),
    { calls: 0, credits: 0, costUsd: 0, soldUsd: 0, marginUsd: 0, uncollectedCredits: 0, belowCostCalls: 0 },
  );
  return {
    from: from.toISOString().slice(0, 10),
    to: to.toISOString().slice(0, 10),
    userId: user,
    creditValueUsd,
    totals,
    byModel: models,
    byUser: byUser.map((r) => ({ userId: r.key as string, email: r.email ?? null, ...money(r) })),
  };
}

function parseDay(value: string, param: string): Date {
  const d = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : new Date(Number.NaN);
  if (Number.isNaN(d.getTime()))
    throw new AppError("validation_failed", `Invalid query: ${param} must be a date like 2026-11-01`, { param });
  return d;
}
