import { db } from "@/lib/db/client";
import { lockInvoiceSubscription } from "./lock-invoice-subscription";
import { SUBSCRIPTION_NOT_KNOWN_YET, type InvoiceEventInput, type PaymentEventOutcome } from "../payment-provider/payment-event-outcome";
import { recordSubscriptionEvent } from "./record-subscription-event";
import { nextSubscriptionState } from "./subscription-state";

/** subscription_payment_recovered: when a failed payment is recorded (and not newer), it is cleared. */
export async function clearPaymentFailure(input: InvoiceEventInput): Promise<PaymentEventOutcome> {
  const prisma = await db();
  return prisma.$transaction(async (tx) => {
    const found = await lockInvoiceSubscription(tx, input);
    if (!found) return SUBSCRIPTION_NOT_KNOWN_YET;
    const { state, applied } = nextSubscriptionState(found.state, { name: "subscription_payment_recovered", at: input.occurredAt });
    if (!applied) return { status: "processed", result: "no failed payment to clear" };
    await tx.subscription.update({ where: { id: found.subscription.id }, data: { paymentFailedAt: state.paymentFailedAt } });
    await recordSubscriptionEvent(tx, {
      subscription: found.subscription,
      event: "subscription_payment_recovered",
      source: "webhook",
      statusFrom: found.subscription.status,
      occurredAt: input.occurredAt,
    });
    return { status: "processed", result: "failed payment cleared" };
  });
}
