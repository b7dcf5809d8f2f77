import { applyMonthlyAllocation } from "@/lib/credits";
import { db } from "@/lib/db/client";
import { currentSubscription } from "./current-subscription";
import { lockInvoiceSubscription } from "./lock-invoice-subscription";
import { SUBSCRIPTION_NOT_KNOWN_YET, type InvoiceEventInput, type PaymentEventOutcome } from "../payment-provider/payment-event-outcome";
import { recordSubscriptionEvent } from "./record-subscription-event";
import { givesAccess, nextSubscriptionState } from "./subscription-state";

/**
 * subscription_payment_success: the payment is confirmed; an earlier failure is cleared, and the
 * subscription credits are set to the tier's monthly allocation once per invoice (the initial
 * payment shares the subscription start's key, so a new subscription is allocated once).
 */
export async function confirmSubscriptionPayment(input: InvoiceEventInput): Promise<PaymentEventOutcome> {
  const prisma = await db();
  const a = input.invoice.attributes;
  return prisma.$transaction(async (tx) => {
    const found = await lockInvoiceSubscription(tx, input);
    if (!found) return SUBSCRIPTION_NOT_KNOWN_YET;
    const { subscription, state } = found;
    const next = nextSubscriptionState(state, { name: "subscription_payment_success", at: input.occurredAt });
    if (next.state.paymentFailedAt !== subscription.paymentFailedAt) {
      await tx.subscription.update({ where: { id: subscription.id }, data: { paymentFailedAt: next.state.paymentFailedAt } });
    }
    const paid = a.status === undefined || a.status === null || a.status === "paid";
    const current = await currentSubscription(input.userId, tx);
    let allocated = false;
    if (paid && current?.id === subscription.id && givesAccess(subscription.status, subscription.endsAt)) {
      const initial = a.billing_reason === "initial";
      ({ applied: allocated } = await applyMonthlyAllocation(
        {
          userId: input.userId,
          tier: subscription.tier,
          cycleKey: initial ? `sub:${subscription.providerSubscriptionId}:start` : `invoice:${input.invoice.id}`,
          operation: initial ? "subscription_start" : "subscription_renewal",
        },
        tx,
      ));
    }
    await recordSubscriptionEvent(tx, {
      subscription,
      event: "subscription_payment_success",
      source: "webhook",
      statusFrom: subscription.status,
      occurredAt: input.occurredAt,
    });
    return { status: "processed", result: `payment confirmed${allocated ? "; monthly allocation applied" : ""}` };
  });
}
