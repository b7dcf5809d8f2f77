import { db } from "@/lib/db/client";

/**
 * When an account's allocation period ends: the one answer every reader gives (the usage endpoint's
 * `nextResetAt`, the alerts' `resetsAt`, the usage report's projection, the streams' X-RateLimit-Reset).
 *   - A paid plan in force: its subscription's current period end, the renewal at which the provider's
 *     payment allocates the next month (known to a caller that read the subscription), else a month
 *     after the last allocation (the renewal a monthly plan's payment makes).
 *   - Otherwise the free allocation's calendar cycle: the 1st of next month, UTC.
 */
export function allocationPeriodEnd(input: { tier: string; lastReset: Date | null; renewsAt?: Date | null }, now: Date = new Date()): Date {
  if (input.tier !== "free") {
    if (input.renewsAt && input.renewsAt > now) return input.renewsAt;
    if (input.lastReset) {
      const next = new Date(input.lastReset);
      next.setUTCMonth(next.getUTCMonth() + 1);
      if (next > now) return next;
    }
  }
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/** Subscription states whose period still allocates (a cancelled plan runs to its period's end). */
const IN_FORCE = ["active", "on_trial", "past_due", "cancelled"];

/**
 * allocationPeriodEnd of an account as stored: its tier, last allocation and the renewal of its plan in
 * force. A caller that has read the tier and the last allocation already (the usage endpoint's balance
 * summary) passes them as `known`: only the plan is read then, and nothing for the free tier.
 */
export async function accountPeriodEnd(
  accountId: string,
  now: Date = new Date(),
  known?: { tier: string; lastReset: Date | null },
): Promise<Date> {
  const prisma = await db();
  const renewal = () =>
    prisma.subscription.findFirst({
      where: { userId: accountId, status: { in: IN_FORCE }, currentPeriodEnd: { gt: now } },
      orderBy: { currentPeriodEnd: "desc" },
      select: { currentPeriodEnd: true },
    });
  if (known) {
    const subscription = known.tier === "free" ? null : await renewal();
    return allocationPeriodEnd({ ...known, renewsAt: subscription?.currentPeriodEnd ?? null }, now);
  }
  const [user, balance, subscription] = await Promise.all([
    prisma.user.findUnique({ where: { id: accountId }, select: { tier: true } }),
    prisma.creditBalance.findUnique({ where: { userId: accountId }, select: { resetAt: true } }),
    renewal(),
  ]);
  return allocationPeriodEnd(
    { tier: user?.tier ?? "free", lastReset: balance?.resetAt ?? null, renewsAt: subscription?.currentPeriodEnd ?? null },
    now,
  );
}
