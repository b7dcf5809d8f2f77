import { HANDLED_PAYMENT_EVENTS } from "@/lib/billing/subscriptions/subscription-state";
import { paymentProvider } from "@/lib/billing/payment-provider/payment-provider";
import {
  stripeEventMeaning,
  stripeWebhookSecret,
  verifyStripeEvent,
  type StripeEvent,
  type StripeInvoice,
  type StripeEventMeaning,
  StripePaymentProvider,
  invoiceAttributes,
} from "@/lib/billing/payment-provider/stripe-client";
import { env } from "@/lib/config/env";
import { isAppError } from "@/lib/errors";
import { db } from "@/lib/db/client";
import { log as rootLog, type Logger } from "@/lib/log";
import { observeDelivery } from "@/lib/webhooks/observe-delivery";
import { claimDelivery, finishDelivery } from "../deliveries";
import { eventEmail, eventObjectId, eventTime, toPaymentEvent, type PaymentEvent } from "./payload";
import { runPaymentDelivery, type PaymentWebhookResult } from "./run-payment-delivery";

/** processStripeWebhook, counted in webhook_deliveries_total (lib/webhooks/observe-delivery.ts). */
export function processStripeWebhook(rawBody: string, signature: string | null, log: Logger = rootLog) {
  return observeDelivery("payment", HANDLED_PAYMENT_EVENTS, () => processStripeWebhookUnobserved(rawBody, signature, log));
}

/**
 * One Stripe delivery: `Stripe-Signature` is verified by the official package on the raw body before
 * anything parses it (400, nothing recorded); the event becomes the payment event it means (the same
 * handlers as Lemon Squeezy's: one state table, one allocation key, one refund rule), recorded under
 * Stripe's event id (a redelivery or replay changes nothing), then handled. Events we do not act on
 * are recorded as ignored and acknowledged.
 */
async function processStripeWebhookUnobserved(rawBody: string, signature: string | null, log: Logger): Promise<PaymentWebhookResult> {
  const stripeEvent = verifyStripeEvent(rawBody, signature, stripeWebhookSecret());
  // Verified, but Stripe does not sell here: acknowledged, nothing recorded under another provider's name.
  if (env().PAYMENT_PROVIDER !== "stripe") {
    return {
      received: true,
      type: stripeEvent.type,
      duplicate: false,
      status: "ignored",
      result: "Stripe is not the payment provider here (PAYMENT_PROVIDER)",
    };
  }
  const event = await paymentEventOf(stripeEvent, stripeEventMeaning(stripeEvent));
  const { claimed, delivery } = await claimDelivery({
    source: "payment",
    deliveryId: stripeEvent.id,
    eventType: event ? event.name : stripeEvent.type,
    payload: event
      ? {
          meta: { event_name: event.name, custom_data: event.custom, stripe_event: { id: stripeEvent.id, type: stripeEvent.type } },
          data: event.data,
        }
      : { stripe_event: { id: stripeEvent.id, type: stripeEvent.type } },
    userEmail: event ? eventEmail(event) : null,
    userRef: event && typeof event.custom.user_id === "string" ? event.custom.user_id : null,
    objectId: event ? eventObjectId(event) : null,
    occurredAt: event ? eventTime(event) : new Date(stripeEvent.created * 1000),
  });
  const base = { received: true as const, type: stripeEvent.type };
  if (!claimed) return { ...base, duplicate: true, status: delivery.status };
  if (!event) {
    await finishDelivery(delivery.id, "ignored", `event type ${stripeEvent.type} is not acted on`);
    return { ...base, duplicate: false, status: "ignored", result: "event type ignored" };
  }
  return { ...(await runPaymentDelivery(delivery.id, event, log)), type: stripeEvent.type };
}

/** A lookup of something Stripe does not have (404) answers nothing; any other failure stands (Stripe retries the delivery). */
function notFoundAsNull(error: unknown): null {
  if (isAppError(error) && error.code === "not_found") return null;
  throw error;
}

/**
 * What a PaymentIntent paid: a credit pack (recorded under the PaymentIntent's id) or a subscription
 * invoice (Stripe's invoice payments name it; recorded under the invoice's id), and whose it is.
 */
async function paymentOfIntent(paymentIntentId: string): Promise<{ userId: string | null; invoice: StripeInvoice | null }> {
  const prisma = await db();
  const receipt = await prisma.payment.findUnique({
    where: { provider_providerPaymentId: { provider: "stripe", providerPaymentId: paymentIntentId } },
    select: { userId: true, kind: true },
  });
  if (receipt?.kind === "pack") return { userId: receipt.userId, invoice: null };
  const invoice = (await stripeProvider()?.invoiceOfPayment(paymentIntentId)) ?? null;
  if (!invoice?.id) return { userId: receipt?.userId ?? null, invoice: null };
  const invoiceReceipt = await prisma.payment.findUnique({
    where: { provider_providerPaymentId: { provider: "stripe", providerPaymentId: invoice.id } },
    select: { userId: true },
  });
  return { userId: invoiceReceipt?.userId ?? invoice.parent?.subscription_details?.metadata?.user_id ?? null, invoice };
}

/** The Stripe provider for the lookups an event needs (null with payments switched off: the event still applies). */
function stripeProvider(): StripePaymentProvider | null {
  try {
    const provider = paymentProvider();
    return provider instanceof StripePaymentProvider ? provider : null;
  } catch {
    return null;
  }
}

/**
 * The payment event a Stripe event means, in the provider shape the handlers take (validated as a
 * Lemon Squeezy payload is). A refund names only its payment: a credit pack's (our receipt, or
 * Stripe's invoice payments when the payment paid a subscription invoice).
 */
async function paymentEventOf(stripeEvent: StripeEvent, meaning: StripeEventMeaning): Promise<PaymentEvent | null> {
  const custom = (userId: string | null) => (userId ? { user_id: userId } : {});
  switch (meaning.kind) {
    case "ignored":
      return null;
    case "subscription": {
      const attributes = { ...meaning.subscription.attributes };
      // A registration-first purchase names no user: the customer's email finds (or waits for) the account.
      // A customer Stripe no longer knows (deleted) leaves the event without an email: kept pending, not refused.
      if (!meaning.userId)
        attributes.user_email = (await stripeProvider()?.customerEmail(meaning.customerId).catch(notFoundAsNull)) ?? null;
      return toPaymentEvent({
        meta: { event_name: meaning.name, custom_data: custom(meaning.userId) },
        data: { id: meaning.subscription.id, type: "subscriptions", attributes },
      });
    }
    case "invoice":
      return toPaymentEvent({
        meta: { event_name: meaning.name, custom_data: custom(meaning.userId) },
        data: { id: meaning.invoice.id, type: "subscription-invoices", attributes: meaning.invoice.attributes },
      });
    case "order": {
      // The receipt is the charge's: a link for the buyer's billing page (none if Stripe cannot say now).
      const receipt = await stripeProvider()
        ?.receiptUrlOfPayment(meaning.order.id)
        .catch(() => null);
      return toPaymentEvent({
        meta: { event_name: "order_created", custom_data: custom(meaning.userId) },
        data: {
          id: meaning.order.id,
          type: "orders",
          attributes: {
            ...meaning.order.attributes,
            first_order_item: { variant_id: meaning.order.attributes.first_order_item?.variant_id || "unknown" },
            urls: { receipt: receipt ?? null },
          },
        },
      });
    }
    case "dispute": {
      const paid = await paymentOfIntent(meaning.paymentIntentId);
      return toPaymentEvent({
        meta: { event_name: meaning.name, custom_data: custom(paid.userId) },
        data: { id: paid.invoice?.id ?? meaning.paymentIntentId, type: "disputes", attributes: meaning.attributes },
      });
    }
    case "refund": {
      const { userId: recorded, invoice } = await paymentOfIntent(meaning.paymentIntentId);
      const userId = recorded ?? meaning.userId;
      if (invoice) {
        const invoiceAttrs = invoiceAttributes(invoice, new Date(stripeEvent.created * 1000));
        return toPaymentEvent({
          meta: {
            event_name: "subscription_payment_refunded",
            custom_data: custom(userId ?? invoice.parent?.subscription_details?.metadata?.user_id ?? null),
          },
          data: {
            id: invoice.id,
            type: "subscription-invoices",
            attributes: {
              ...invoiceAttrs,
              total: meaning.attributes.total,
              refunded_amount: meaning.attributes.refunded_amount,
              refunded_at: meaning.attributes.refunded_at,
              status: meaning.attributes.status,
            },
          },
        });
      }
      return toPaymentEvent({
        meta: { event_name: "order_refunded", custom_data: custom(userId) },
        data: {
          id: meaning.paymentIntentId,
          type: "orders",
          attributes: {
            ...meaning.attributes,
            first_order_item: { variant_id: meaning.attributes.first_order_item?.variant_id || "unknown" },
          },
        },
      });
    }
  }
}
