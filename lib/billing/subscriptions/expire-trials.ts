import { db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { applySubscriptionSnapshot } from "./apply-subscription-snapshot";
import { lemonSqueezyFromEnv } from "../payment-provider/lemonsqueezy-client";
import { snapshotFromRecord } from "../payment-provider/record-snapshot";

/**
 * The trial-expiry job (classic_saas; the cron route decides): every subscription still on trial
 * past its trial end is expired and its user downgraded to free with the free allocation. With Lemon
 * Squeezy configured the provider is asked first: a trial it converted (active, ...) is updated
 * instead of expired. Idempotent: an expired trial is no longer on_trial.
 */
export async function expireTrials(now = new Date()): Promise<{ expiredCount: number; convertedCount: number }> {
  const prisma = await db();
  const lemon = lemonSqueezyFromEnv();
  let expiredCount = 0;
  let convertedCount = 0;
  for (;;) {
    const due = await prisma.subscription.findMany({
      where: { status: "on_trial", trialEndsAt: { lte: now } },
      include: { user: { select: { email: true } } },
      orderBy: { trialEndsAt: "asc" },
      take: 100,
    });
    if (due.length === 0) break;
    for (const row of due) {
      try {
        if (lemon) {
          const remote = await lemon.getSubscription(row.providerSubscriptionId);
          if (remote && remote.attributes.status !== "on_trial") {
            const result = await applySubscriptionSnapshot({
              userId: row.userId,
              subscription: remote,
              event: "subscription_updated",
              provider: "lemonsqueezy",
              source: "reconciliation",
            });
            const status = result.subscription.status;
            if (status !== "on_trial") {
              if (status === "expired") expiredCount++;
              else convertedCount++;
              continue;
            }
          }
        }
        const at = new Date(Math.max(now.getTime(), (row.providerUpdatedAt?.getTime() ?? 0) + 1));
        const snapshot = snapshotFromRecord(
          row,
          row.user.email,
          { status: "expired", cancelled: false, ends_at: row.trialEndsAt?.toISOString() ?? at.toISOString() },
          at,
        );
        await applySubscriptionSnapshot({
          userId: row.userId,
          subscription: snapshot,
          event: "subscription_expired",
          provider: row.provider,
          source: "trial_expiry",
        });
        expiredCount++;
      } catch (error) {
        log.error("trial expiry failed for a subscription", { subscriptionId: row.id, error });
        // Leave it for the next run; never loop on it in this one.
        await prisma.subscription.update({ where: { id: row.id }, data: { updatedAt: new Date() } }).catch(() => undefined);
        return { expiredCount, convertedCount };
      }
    }
  }
  return { expiredCount, convertedCount };
}
