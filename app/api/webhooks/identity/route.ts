import { z } from "zod";
import { methods, webhookRoute } from "@/lib/http/route";
import { processIdentityWebhook } from "@/lib/webhooks/identity/process-identity-webhook";
import { identityWebhookResponse } from "@/lib/webhooks/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: webhookRoute(
    {
      summary: "Identity provider user lifecycle events",
      description:
        "Clerk-shaped user.created / user.updated / user.deleted, signed with svix headers (svix-id, svix-timestamp, svix-signature) and IDENTITY_WEBHOOK_SECRET. A duplicate svix-id changes nothing.",
      response: identityWebhookResponse,
      bodyDoc: z.object({
        type: z.string().meta({ description: "user.created, user.updated or user.deleted (others are acknowledged and ignored)" }),
        data: z.record(z.string(), z.unknown()),
      }),
    },
    (raw, { req, log }) => processIdentityWebhook(raw, req.headers, log),
  ),
});
