import { z } from "zod";
import { processEmailWebhook } from "@/lib/webhooks/email/process-email-webhook";
import { methods, webhookRoute } from "@/lib/http/route";
import { emailWebhookResponse } from "@/lib/webhooks/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: webhookRoute(
    {
      summary: "Email delivery events (Resend)",
      description:
        "svix-signed (svix-id, svix-timestamp, svix-signature; EMAIL_WEBHOOK_SECRET). email.delivered, email.bounced and email.complained update the email log found by data.email_id; other types are acknowledged. A duplicate svix-id changes nothing.",
      response: emailWebhookResponse,
      bodyDoc: z.object({
        type: z.string().meta({ description: "email.delivered, email.bounced or email.complained (others are acknowledged)" }),
        data: z.object({ email_id: z.string() }),
      }),
    },
    (raw, { req, log }) => processEmailWebhook(raw, req.headers, log),
  ),
});
