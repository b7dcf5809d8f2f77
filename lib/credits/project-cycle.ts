import { db } from "@/lib/db/client";
import { accountPeriodEnd } from "./allocation-period";

/**
 * A pace is read only from enough of it: a day into the cycle and 10 charged calls. Before that
 * (two calls in the first hour would project the whole allocation many times over) the projection is
 * null: the dashboard says nothing about the pace.
 */
const PROJECTION_MIN_ELAPSED_MS = 24 * 60 * 60_000;
const PROJECTION_MIN_CALLS = 10;

/**
 * The current allocation cycle: spent since its last reset and, at that pace, by its end. One home
 * for the pace: the usage report shows it, the projected-overrun alert (lib/spend-alerts) fires on it.
 */
export async function projectCycle(accountId: string, memberId: string | null, nowMs = Date.now()) {
  const prisma = await db();
  const balance = await prisma.creditBalance.findUnique({
    where: { userId: accountId },
    select: { monthlyAllocation: true, resetAt: true },
  });
  if (!balance?.resetAt) return null;
  const start = balance.resetAt;
  const end = await accountPeriodEnd(accountId);
  const [spent] = await prisma.$queryRaw<{ credits: bigint; calls: bigint }[]>`
    SELECT COALESCE(SUM(amount), 0) AS credits, COUNT(*) AS calls FROM credit_operations
     WHERE user_id = ${accountId} AND kind = 'charge' AND status IN ('reserved', 'settled') AND created_at >= ${start}
       AND (${memberId}::text IS NULL OR member_id = ${memberId}::text)`;
  const elapsed = nowMs - start.getTime();
  const length = end.getTime() - start.getTime();
  const credits = Number(spent.credits);
  const enough = elapsed >= PROJECTION_MIN_ELAPSED_MS && Number(spent.calls) >= PROJECTION_MIN_CALLS;
  return {
    cycleStart: start.toISOString(),
    cycleEnd: end.toISOString(),
    allocation: balance.monthlyAllocation,
    spent: credits,
    projected: enough ? Math.round((credits * length) / Math.min(elapsed, length)) : null,
  };
}
