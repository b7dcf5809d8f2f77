import { z } from "zod";

/** Answers of the three webhook endpoints (what the sender sees; the effects are in the delivery log). */

export const identityWebhookResponse = z.object({
  received: z.literal(true),
  type: z.string(),
  duplicate: z.boolean(),
  result: z.string().optional(),
});

export const paymentWebhookResponse = z.object({
  received: z.literal(true),
  type: z.string(),
  duplicate: z.boolean(),
  status: z.string().meta({ description: "processed, pending, ignored or failed (a duplicate: the first delivery's status)" }),
  result: z.string().optional(),
});

/** SPEC §4.6: `processed` is the event type. */
export const emailWebhookResponse = z.object({ success: z.boolean(), processed: z.string() });
