import { nextSubscriptionState } from "@/lib/billing/subscription-state";
import { tierConfig } from "@/lib/config/pricing";
import { db } from "@/lib/db/client";
import { sendEmail } from "@/lib/email/send-email";
import { lockInvoiceSubscription } from "./invoice-subscription";
import type { PaymentEventHandler } from "./types";

/**
 * subscription_payment_failed: the failure is recorded on the subscription (payment_failed_at, so the
 * user status shows needsAction) unless a later payment already succeeded, and the user is notified
 * by email (a mail failure is logged; the event still counts as processed).
 */
export const handleSubscriptionPaymentFailed: PaymentEventHandler = async (ctx) => {
  const prisma = await db();
  const outcome = await prisma.$transaction(async (tx) => {
    const found = await lockInvoiceSubscription(tx, ctx);
    if (!found) return null;
    const { applied } = nextSubscriptionState(found.state, { name: "subscription_payment_failed", at: ctx.occurredAt });
    if (applied) await tx.subscription.update({ where: { id: found.subscription.id }, data: { paymentFailedAt: ctx.occurredAt } });
    return { applied, subscription: found.subscription };
  });
  if (!outcome) return { status: "pending", result: "subscription not known yet; kept until it arrives" };
  if (!outcome.applied) return { status: "processed", result: "older than a successful payment; ignored" };

  const user = await prisma.user.findUnique({ where: { id: ctx.userId }, select: { email: true, name: true } });
  if (user?.email) {
    const plan = tierConfig(outcome.subscription.tier).name;
    const portal = outcome.subscription.customerPortalUrl;
    try {
      await sendEmail({
        to: user.email,
        subject: `Payment failed for your ${plan} subscription`,
        text: [
          `Hello${user.name ? ` ${user.name}` : ""},`,
          "",
          `We could not collect the latest payment for your ${plan} subscription. We will retry automatically;`,
          "to keep your plan, please update your payment method" + (portal ? `: ${portal}` : " in the billing portal of your account."),
        ].join("\n"),
        type: "payment_failed",
        userId: ctx.userId,
      });
    } catch (error) {
      ctx.log.error("payment failure notification not sent", { userId: ctx.userId, error });
    }
  }
  return { status: "processed", result: "payment failure recorded; user notified" };
};
