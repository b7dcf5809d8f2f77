import { z } from "zod";
import { methods, route } from "@/lib/http/route";
import { processIdentityWebhook } from "@/lib/webhooks/identity/process-identity-webhook";
import { identityWebhookResponse } from "@/lib/webhooks/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route(
    {
      auth: "none",
      rateLimit: "webhooks",
      summary: "Identity provider user lifecycle events",
      description:
        "Clerk-shaped user.created / user.updated / user.deleted, signed with svix headers (svix-id, svix-timestamp, svix-signature) and IDENTITY_WEBHOOK_SECRET. A duplicate svix-id changes nothing.",
      tags: ["webhooks"],
      errors: [400, 401],
      response: identityWebhookResponse,
      consumes: "application/json",
      bodyDoc: z.object({
        type: z.string().meta({ description: "user.created, user.updated or user.deleted (others are acknowledged and ignored)" }),
        data: z.record(z.string(), z.unknown()),
      }),
    },
    async ({ req, log }) => processIdentityWebhook(await req.text(), req.headers, log),
  ),
});
