import { z } from "zod";
import { methods, webhookRoute } from "@/lib/http/route";
import { processStripeWebhook } from "@/lib/webhooks/payment/process-stripe-webhook";
import { paymentWebhookResponse } from "@/lib/webhooks/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: webhookRoute(
    {
      summary: "Payment provider events (Stripe)",
      description:
        "Stripe's events (PAYMENT_PROVIDER=stripe): customer.subscription.*, invoice.paid, invoice.payment_failed, checkout.session.completed and charge.refunded act; any other type is acknowledged and ignored. Stripe-Signature is verified by the official package on the raw body with STRIPE_WEBHOOK_SECRET and a 300 s timestamp tolerance before parsing (400, nothing recorded). Recorded under the event id: a redelivery changes nothing. 200 once processing was attempted.",
      response: paymentWebhookResponse,
      bodyDoc: z.object({
        id: z.string().meta({ description: "evt_...: the delivery's idempotency key" }),
        type: z.string().meta({ description: "e.g. invoice.paid" }),
        created: z.number().meta({ description: "Unix seconds: the event's time, which orders subscription snapshots" }),
        data: z.object({ object: z.record(z.string(), z.unknown()) }),
      }),
    },
    (raw, { req, log }) => processStripeWebhook(raw, req.headers.get("stripe-signature"), log),
  ),
});
