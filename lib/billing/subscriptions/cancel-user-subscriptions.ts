import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { paymentProvider } from "../payment-provider/payment-provider";
import { paymentProviderName } from "../payment-provider/payment-provider-name";

/** Subscription states that may still bill. */
const RUNNING = ["active", "on_trial", "past_due", "unpaid", "paused"];

/**
 * Before an account is deleted or closed (lib/account/delete-user.ts, an organisation its owner
 * deletes): cancels its running subscriptions at the payment provider they were bought from (Stripe,
 * Lemon Squeezy or the local simulator), so it is never billed again. One of another provider than
 * this server's (the operator switched) cannot be reached from here: said in the log for the
 * operator. A provider that fails throws, so the caller changes nothing.
 */
export async function cancelUserSubscriptions(userId: string): Promise<number> {
  if (!env().PAYMENTS_ENABLED) return 0;
  const prisma = await db();
  const rows = await prisma.subscription.findMany({
    where: { userId, status: { in: RUNNING } },
    select: { provider: true, providerSubscriptionId: true },
  });
  if (rows.length === 0) return 0;
  const current = paymentProviderName();
  let cancelled = 0;
  for (const { provider, providerSubscriptionId } of rows) {
    if (provider !== current) {
      log.warn("subscription of another payment provider not cancelled: cancel it there", { userId, provider, providerSubscriptionId });
      continue;
    }
    try {
      await paymentProvider().cancelSubscription(providerSubscriptionId);
      cancelled++;
    } catch (error) {
      if (isAppError(error) && error.code === "not_found") continue;
      throw error;
    }
  }
  if (cancelled) log.info("provider subscriptions cancelled for a deleted account", { userId, cancelled });
  return cancelled;
}
