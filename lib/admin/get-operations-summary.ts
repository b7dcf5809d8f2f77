import type { z } from "zod";
import { LIVE_STATUSES } from "@/lib/billing/subscriptions/current-subscription";
import { db } from "@/lib/db/client";
import type { summaryResponse } from "./schemas";

const DAY_MS = 86_400_000;

/**
 * The numbers an operator looks at first: users by tier, subscriptions by status, credits granted,
 * used and refunded today and this month (UTC, from the ledger), failed webhook deliveries in the
 * last 24 hours and those still pending, failed cron runs, emails (sign-in links above all) that did not
 * go out in the last 24 hours. A handful of aggregate queries.
 */
export async function getOperationsSummary(now = new Date()): Promise<z.infer<typeof summaryResponse>> {
  const prisma = await db();
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const dayAgo = new Date(now.getTime() - DAY_MS);
  const [byTier, locked, byStatus, credits, failedDeliveries, pending, cronDay, cronWeek, mailFailed, signInFailed, lastMailFailure] =
    await Promise.all([
      prisma.user.groupBy({ by: ["tier"], _count: { _all: true } }),
      prisma.user.count({ where: { lockedAt: { not: null } } }),
      prisma.subscription.groupBy({ by: ["status"], _count: { _all: true } }),
      prisma.$queryRaw<{ period: string; granted: number; used: number; refunded: number }[]>`
      SELECT period,
        COALESCE(SUM(amount) FILTER (WHERE amount > 0 AND type <> 'refund'), 0)::int AS granted,
        COALESCE(-SUM(amount) FILTER (WHERE type = 'usage'), 0)::int AS used,
        COALESCE(SUM(amount) FILTER (WHERE type = 'refund'), 0)::int AS refunded
      FROM (
        SELECT 'month' AS period, amount, type FROM credit_transactions WHERE created_at >= ${monthStart}::timestamptz
        UNION ALL
        SELECT 'today', amount, type FROM credit_transactions WHERE created_at >= ${dayStart}::timestamptz
      ) t
      GROUP BY period`,
      prisma.webhookDelivery.count({ where: { status: "failed", receivedAt: { gte: new Date(now.getTime() - DAY_MS) } } }),
      prisma.webhookDelivery.count({ where: { status: "pending" } }),
      prisma.cronRun.count({ where: { status: "failed", startedAt: { gte: new Date(now.getTime() - DAY_MS) } } }),
      prisma.cronRun.count({ where: { status: "failed", startedAt: { gte: new Date(now.getTime() - 7 * DAY_MS) } } }),
      prisma.emailLog.count({ where: { status: "failed", createdAt: { gte: dayAgo } } }),
      prisma.emailLog.count({ where: { status: "failed", type: "sign_in", createdAt: { gte: dayAgo } } }),
      prisma.emailLog.findFirst({
        where: { status: "failed", createdAt: { gte: dayAgo } },
        orderBy: { createdAt: "desc" },
        select: { createdAt: true, type: true, error: true },
      }),
    ]);
  const period = (name: string) => {
    const row = credits.find((c) => c.period === name);
    return { granted: Number(row?.granted ?? 0), used: Number(row?.used ?? 0), refunded: Number(row?.refunded ?? 0) };
  };
  const statusCounts = Object.fromEntries(byStatus.map((s) => [s.status, s._count._all]));
  return {
    users: {
      total: byTier.reduce((sum, t) => sum + t._count._all, 0),
      byTier: Object.fromEntries(byTier.map((t) => [t.tier, t._count._all])),
      locked,
    },
    subscriptions: { active: LIVE_STATUSES.reduce((sum, s) => sum + (statusCounts[s] ?? 0), 0), byStatus: statusCounts },
    credits: { today: period("today"), month: period("month") },
    webhooks: { failedLast24h: failedDeliveries, pending },
    cron: { failedLast24h: cronDay, failedLast7d: cronWeek },
    emails: {
      failedLast24h: mailFailed,
      signInFailedLast24h: signInFailed,
      lastFailure: lastMailFailure
        ? { at: lastMailFailure.createdAt.toISOString(), type: lastMailFailure.type, error: lastMailFailure.error ?? "" }
        : null,
    },
    generatedAt: now.toISOString(),
  };
}
