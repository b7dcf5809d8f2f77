import type { Prisma, Subscription } from "@/lib/generated/prisma/client";
import type { InvoiceEventInput } from "../payment-provider/payment-event-outcome";
import { EMPTY_STATE, type SubscriptionState } from "./subscription-state";

/**
 * The subscription an invoice event is about (one of the user's), locked for the caller's
 * transaction, with its state for the state machine (paymentOkAt: the newest successful or recovered
 * payment recorded). Null when that subscription has not arrived yet.
 */
export async function lockInvoiceSubscription(
  tx: Prisma.TransactionClient,
  input: InvoiceEventInput,
): Promise<{ subscription: Subscription; state: SubscriptionState } | null> {
  const providerSubscriptionId = String(input.invoice.attributes.subscription_id);
  const locked = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM subscriptions WHERE provider_subscription_id = ${providerSubscriptionId}::text AND user_id = ${input.userId}::text FOR UPDATE`;
  if (locked.length === 0) return null;
  const subscription = await tx.subscription.findUniqueOrThrow({ where: { id: locked[0].id } });
  const ok = await tx.webhookDelivery.findFirst({
    where: {
      source: "payment",
      objectId: providerSubscriptionId,
      eventType: { in: ["subscription_payment_success", "subscription_payment_recovered"] },
      status: { in: ["processed", "received"] },
      occurredAt: { not: null },
    },
    orderBy: { occurredAt: "desc" },
    select: { occurredAt: true },
  });
  return {
    subscription,
    state: {
      ...EMPTY_STATE,
      status: subscription.status as SubscriptionState["status"],
      updatedAt: subscription.providerUpdatedAt,
      paymentFailedAt: subscription.paymentFailedAt,
      paymentOkAt: ok?.occurredAt ?? null,
    },
  };
}
