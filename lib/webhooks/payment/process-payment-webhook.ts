import { createHash } from "node:crypto";
import { observeDelivery } from "@/lib/webhooks/observe-delivery";
import { HANDLED_PAYMENT_EVENTS } from "@/lib/billing/subscriptions/subscription-state";
import { paymentWebhookSecret } from "@/lib/billing/payment-provider/signing-secret";
import { log as rootLog, type Logger } from "@/lib/log";
import { claimDelivery } from "../deliveries";
import { eventEmail, eventObjectId, eventTime, parsePaymentEvent } from "./payload";
import { runPaymentDelivery, type PaymentWebhookResult } from "./run-payment-delivery";
import { verifyPaymentSignature } from "./signature";

export type { PaymentWebhookResult } from "./run-payment-delivery";

/** processPaymentWebhook, counted in webhook_deliveries_total (lib/webhooks/observe-delivery.ts). */
export function processPaymentWebhook(rawBody: string, signature: string | null, log: Logger = rootLog) {
  return observeDelivery("payment", HANDLED_PAYMENT_EVENTS, () => processPaymentWebhookUnobserved(rawBody, signature, log));
}

/**
 * One payment-provider delivery: the X-Signature is verified on the raw body before anything parses
 * it (401, no effect), the payload is validated (400), the delivery is recorded under the sha256 of
 * the raw body (a duplicate changes nothing), then its handler runs. A handler failure is logged and
 * the delivery marked failed, and the answer is still 200 (SPEC §4.6): a redelivery of the same body
 * processes it again, and reconciliation (npm run billing:sync) repairs what was missed.
 */
async function processPaymentWebhookUnobserved(
  rawBody: string,
  signature: string | null,
  log: Logger = rootLog,
): Promise<PaymentWebhookResult> {
  verifyPaymentSignature(rawBody, signature, paymentWebhookSecret());
  const { event, payload } = parsePaymentEvent(rawBody);
  const { claimed, delivery } = await claimDelivery({
    source: "payment",
    deliveryId: createHash("sha256").update(rawBody, "utf8").digest("hex"),
    eventType: event.name,
    payload,
    userEmail: eventEmail(event),
    userRef: typeof event.custom.user_id === "string" ? event.custom.user_id : null,
    objectId: eventObjectId(event),
    occurredAt: eventTime(event),
  });
  if (!claimed) return { received: true, type: event.name, duplicate: true, status: delivery.status };
  return runPaymentDelivery(delivery.id, event, log);
}
