import { tierConfig } from "@/lib/config/pricing";
import { applyMonthlyAllocation, takeBackPayment } from "@/lib/credits";
import { paymentProviderName } from "../payment-provider/payment-provider-name";
import { recordPayment } from "../receipts/record-payment";
import { receiptUrlOf } from "../receipts/refund-payment";
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
  let receipt: { id: string; refundedAmount: number } | null = null;
  const outcome = await prisma.$transaction(async (tx) => {
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
    const initial = a.billing_reason === "initial";
    const cycleKey = initial ? `sub:${subscription.providerSubscriptionId}:start` : `invoice:${input.invoice.id}`;
    if (paid && current?.id === subscription.id && givesAccess(subscription.status, subscription.endsAt)) {
      ({ applied: allocated } = await applyMonthlyAllocation(
        {
          userId: input.userId,
          tier: subscription.tier,
          cycleKey,
          operation: initial ? "subscription_start" : "subscription_renewal",
        },
        tx,
      ));
    }
    // The receipt (money received only: a trial's first invoice of 0 is none), with the allocation it paid for.
    if (paid && typeof a.total === "number" && a.total > 0) {
      // Its allocation: applied now, or already (a new subscription's start shares the first invoice's key).
      const allocation = await tx.creditOperation.findUnique({
        where: { idempotencyKey: `reset:${input.userId}:${cycleKey}` },
        select: { amount: true },
      });
      receipt = await recordPayment(
        {
          userId: input.userId,
          provider: paymentProviderName(),
          providerPaymentId: input.invoice.id,
          kind: initial ? "plan" : "renewal",
          description: `${tierConfig(subscription.tier).name} plan (${subscription.billingPeriod})`,
          amount: a.total,
          currency: typeof a.currency === "string" ? a.currency : "USD",
          receiptUrl: receiptUrlOf(a),
          credits: allocation?.amount ?? 0,
          allocationCycle: allocation ? cycleKey : null,
          paidAt: input.occurredAt,
          providerCustomerId: a.customer_id ? String(a.customer_id) : subscription.providerCustomerId,
        },
        tx,
      );
    }
    await recordSubscriptionEvent(tx, {
      subscription,
      event: "subscription_payment_success",
      source: "webhook",
      statusFrom: subscription.status,
      occurredAt: input.occurredAt,
    });
    return { status: "processed" as const, result: `payment confirmed${allocated ? "; monthly allocation applied" : ""}` };
  });
  // A refund that arrived before this payment's confirmation takes the allocation back now.
  const kept = receipt as { id: string; refundedAmount: number } | null;
  if (kept && kept.refundedAmount > 0) await takeBackPayment({ paymentId: kept.id, refundedAmount: kept.refundedAmount, at: new Date() });
  return outcome;
}
