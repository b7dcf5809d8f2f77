import { paymentWebhookSecret } from "@/lib/billing/payment-provider/signing-secret";
import { AppError } from "@/lib/errors";
import { createLogger } from "@/lib/log";
import { processPaymentWebhook } from "@/lib/webhooks/payment/process-payment-webhook";
import { signPaymentBody } from "@/lib/webhooks/payment/signature";

const log = createLogger({ component: "checkout-simulator" });

/** Signs a Lemon Squeezy-shaped event and runs it through the webhook processing, as a delivery would. */
export async function deliverSimulatedEvent(
  eventName: string,
  data: { type: string; id: string; attributes: Record<string, unknown> },
  custom: Record<string, string>,
) {
  const secret = paymentWebhookSecret();
  if (!secret) throw new AppError("provider_not_configured", "The checkout simulator needs PAYMENT_WEBHOOK_SECRET in production");
  const rawBody = JSON.stringify({
    meta: { event_name: eventName, custom_data: custom, test_mode: true, webhook_id: "simulator" },
    data: { ...data, relationships: {}, links: {} },
  });
  const result = await processPaymentWebhook(rawBody, signPaymentBody(rawBody, secret), log);
  log.info("simulated webhook delivered", { event: eventName, objectId: data.id, result: result.result });
  return result;
}
