import { z } from "zod";
import { methods, webhookRoute } from "@/lib/http/route";
import { processPaymentWebhook } from "@/lib/webhooks/payment/process-payment-webhook";
import { paymentWebhookResponse } from "@/lib/webhooks/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: webhookRoute(
    {
      summary: "Payment provider events (Lemon Squeezy)",
      description:
        "The 11 Lemon Squeezy event types of SPEC §6. X-Signature = hex HMAC-SHA256 of the raw body with PAYMENT_WEBHOOK_SECRET, verified before parsing (401, no effect). A duplicate body changes nothing. 200 once processing was attempted, even when the handler failed (logged; the delivery is marked failed).",
      response: paymentWebhookResponse,
      bodyDoc: z.object({
        meta: z.object({
          event_name: z.string().meta({ description: "order_created or one of the 10 subscription_* events" }),
          custom_data: z.record(z.string(), z.unknown()).optional(),
        }),
        data: z.object({ id: z.string(), type: z.string(), attributes: z.record(z.string(), z.unknown()) }),
      }),
    },
    (raw, { req, log }) => processPaymentWebhook(raw, req.headers.get("x-signature"), log),
  ),
});
