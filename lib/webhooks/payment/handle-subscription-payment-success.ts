import { givesAccess, nextSubscriptionState } from "@/lib/billing/subscription-state";
import { currentSubscription } from "@/lib/billing/current-subscription";
import { applyMonthlyAllocation } from "@/lib/credits";
import { db } from "@/lib/db/client";
import { lockInvoiceSubscription } from "./invoice-subscription";
import type { PaymentEventHandler } from "./types";

/**
 * subscription_payment_success: the payment is confirmed; an earlier failure is cleared, and the
 * subscription credits are set to the tier's monthly allocation once per invoice (the initial
 * payment shares the subscription start's key, so a new subscription is allocated once).
 */
export const handleSubscriptionPaymentSuccess: PaymentEventHandler = async (ctx) => {
  const prisma = await db();
  const a = ctx.event.data.attributes;
  return prisma.$transaction(async (tx) => {
    const found = await lockInvoiceSubscription(tx, ctx);
    if (!found) return { status: "pending" as const, result: "subscription not known yet; kept until it arrives" };
    const { subscription, state } = found;
    const next = nextSubscriptionState(state, { name: "subscription_payment_success", at: ctx.occurredAt });
    if (next.state.paymentFailedAt !== subscription.paymentFailedAt) {
      await tx.subscription.update({ where: { id: subscription.id }, data: { paymentFailedAt: next.state.paymentFailedAt } });
    }
    const paid = a.status === undefined || a.status === null || a.status === "paid";
    const current = await currentSubscription(ctx.userId, tx);
    let allocated = false;
    if (paid && current?.id === subscription.id && givesAccess(subscription.status, subscription.endsAt)) {
      const cycleKey = a.billing_reason === "initial" ? `sub:${subscription.providerSubscriptionId}:start` : `invoice:${ctx.event.data.id}`;
      ({ applied: allocated } = await applyMonthlyAllocation(
        { userId: ctx.userId, tier: subscription.tier, cycleKey, operation: a.billing_reason === "initial" ? "subscription_start" : "subscription_renewal" },
        tx,
      ));
    }
    return { status: "processed" as const, result: `payment confirmed${allocated ? "; monthly allocation applied" : ""}` };
  });
};
