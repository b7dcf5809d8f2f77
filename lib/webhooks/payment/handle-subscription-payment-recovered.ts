import { nextSubscriptionState } from "@/lib/billing/subscription-state";
import { db } from "@/lib/db/client";
import { lockInvoiceSubscription } from "./invoice-subscription";
import type { PaymentEventHandler } from "./types";

/** subscription_payment_recovered: when a failed payment is recorded (and not newer), it is cleared. */
export const handleSubscriptionPaymentRecovered: PaymentEventHandler = async (ctx) => {
  const prisma = await db();
  return prisma.$transaction(async (tx) => {
    const found = await lockInvoiceSubscription(tx, ctx);
    if (!found) return { status: "pending" as const, result: "subscription not known yet; kept until it arrives" };
    const { state, applied } = nextSubscriptionState(found.state, { name: "subscription_payment_recovered", at: ctx.occurredAt });
    if (!applied) return { status: "processed" as const, result: "no failed payment to clear" };
    await tx.subscription.update({ where: { id: found.subscription.id }, data: { paymentFailedAt: state.paymentFailedAt } });
    return { status: "processed" as const, result: "failed payment cleared" };
  });
};
