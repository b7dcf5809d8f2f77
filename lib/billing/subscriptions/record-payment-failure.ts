import { tierConfig } from "@/lib/config/pricing";
import { db } from "@/lib/db/client";
import { sendEmail } from "@/lib/email/send-email";
import type { Subscription } from "@/lib/generated/prisma/client";
import { log as rootLog, type Logger } from "@/lib/log";
import { deliverSoon } from "@/lib/outbound/deliver-outbound";
import { emitEvent } from "@/lib/outbound/emit-event";
import { lockInvoiceSubscription } from "./lock-invoice-subscription";
import { SUBSCRIPTION_NOT_KNOWN_YET, type InvoiceEventInput, type PaymentEventOutcome } from "../payment-provider/payment-event-outcome";
import { recordSubscriptionEvent } from "./record-subscription-event";
import { nextSubscriptionState } from "./subscription-state";

/**
 * subscription_payment_failed: the failure is recorded on the subscription (payment_failed_at, so the
 * user status shows needsAction) unless a later payment already succeeded, and the user is notified
 * by email (a mail failure is logged; the event still counts as processed).
 */
export async function recordPaymentFailure(input: InvoiceEventInput, log: Logger = rootLog): Promise<PaymentEventOutcome> {
  const prisma = await db();
  const outcome = await prisma.$transaction(async (tx) => {
    const found = await lockInvoiceSubscription(tx, input);
    if (!found) return null;
    const { applied } = nextSubscriptionState(found.state, { name: "subscription_payment_failed", at: input.occurredAt });
    if (applied) {
      await tx.subscription.update({ where: { id: found.subscription.id }, data: { paymentFailedAt: input.occurredAt } });
      await recordSubscriptionEvent(tx, {
        subscription: found.subscription,
        event: "subscription_payment_failed",
        source: "webhook",
        statusFrom: found.subscription.status,
        occurredAt: input.occurredAt,
      });
      await emitEvent(tx, {
        accountId: input.userId,
        type: "payment.failed",
        dedupeKey: `payment.failed:${found.subscription.id}:${input.occurredAt.toISOString()}`,
        data: {
          subscriptionId: found.subscription.providerSubscriptionId,
          tier: found.subscription.tier,
          failedAt: input.occurredAt.toISOString(),
        },
      });
    }
    return { applied, subscription: found.subscription };
  });
  if (!outcome) return SUBSCRIPTION_NOT_KNOWN_YET;
  if (!outcome.applied) return { status: "processed", result: "older than a successful payment; ignored" };
  deliverSoon();
  try {
    await notifyPaymentFailure(input.userId, outcome.subscription);
  } catch (error) {
    log.error("payment failure notification not sent", { userId: input.userId, error });
  }
  return { status: "processed", result: "payment failure recorded; user notified" };
}

async function notifyPaymentFailure(userId: string, subscription: Subscription): Promise<void> {
  const prisma = await db();
  const user = await prisma.user.findUnique({ where: { id: userId }, select: { email: true, name: true } });
  if (!user?.email) return;
  const plan = tierConfig(subscription.tier).name;
  const portal = subscription.customerPortalUrl;
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
    userId,
  });
}
