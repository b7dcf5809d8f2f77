import { db } from "@/lib/db/client";
import { isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { lemonSqueezyFromEnv } from "../payment-provider/lemonsqueezy-client";

/**
 * Account deletion step (lib/account/delete-user.ts): cancels the user's running Lemon Squeezy
 * subscriptions so a deleted account is never billed again. Simulator subscriptions live only in our
 * database and go with the user's rows.
 */
export async function cancelUserSubscriptions(userId: string): Promise<number> {
  const lemon = lemonSqueezyFromEnv();
  if (!lemon) return 0;
  const prisma = await db();
  const rows = await prisma.subscription.findMany({
    where: { userId, provider: "lemonsqueezy", status: { in: ["active", "on_trial", "past_due", "unpaid", "paused"] } },
    select: { providerSubscriptionId: true },
  });
  let cancelled = 0;
  for (const { providerSubscriptionId } of rows) {
    try {
      await lemon.cancelSubscription(providerSubscriptionId);
      cancelled++;
    } catch (error) {
      if (isAppError(error) && error.code === "not_found") continue;
      throw error;
    }
  }
  if (cancelled) log.info("provider subscriptions cancelled for a deleted user", { userId, cancelled });
  return cancelled;
}
