import { z } from "zod";
import { oneLineText } from "@/lib/text-shapes";
import { OUTBOUND_EVENT_TYPES, SUBSCRIBABLE } from "./event-types";

/** Requests and responses of /api/webhook-endpoints (the dashboard infers its types from these). */
const events = z
  .array(z.enum(SUBSCRIBABLE, { error: `must be event types: ${SUBSCRIBABLE.join(", ")}` }))
  .min(1, "choose at least one event")
  .max(20)
  .meta({ description: "event types, or subscription.* for every subscription event" });
const url = z.string({ error: "is required" }).trim().min(1, "is required").max(2000, "must be at most 2,000 characters");
const description = oneLineText(200, { allowEmpty: true }).nullable().optional();
export const ENDPOINT_FORMATS = ["standard", "slack"] as const;
const format = z.enum(ENDPOINT_FORMATS, { error: "must be standard or slack" }).optional().meta({
  description: 'standard (default): the event itself; slack: {"text": ...} in words, for a Slack-compatible incoming webhook (signed too)',
});

export const createEndpointBody = z.object({ url, events, description, format });
export const updateEndpointBody = z
  .object({
    url: url.optional(),
    events: events.optional(),
    description,
    format,
    enabled: z.boolean().optional().meta({ description: "true enables a disabled endpoint again" }),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: "give url, events, description, format or enabled" });

export const endpointView = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(z.string()),
  format: z.enum(ENDPOINT_FORMATS),
  enabled: z.boolean(),
  disabledAt: z.string().nullable(),
  disabledReason: z.string().nullable(),
  previousSecretExpiresAt: z
    .string()
    .nullable()
    .meta({ description: "until then the secret before the last rotation signs beside the current one (null: no overlap running)" }),
  createdAt: z.string(),
});
export const endpointResponse = z.object({ endpoint: endpointView });
export const endpointCreatedResponse = z.object({
  endpoint: endpointView,
  secret: z.string().meta({ description: "the signing secret (whsec_…), shown in this answer and when rotated" }),
});
export const rotateSecretBody = z
  .object({
    overlapHours: z
      .number({ error: "must be a number of hours" })
      .int("must be a whole number of hours")
      .min(0, "must be 0 or more")
      .max(168, "must be at most 168 (7 days)")
      .optional()
      .meta({ description: "hours the current secret keeps signing beside the new one (default 24; 0 stops it at once)" }),
  })
  .optional();
export const endpointsResponse = z.object({ endpoints: z.array(endpointView) });
export const deliveryView = z.object({
  id: z.string(),
  eventId: z.string(),
  type: z.string(),
  status: z.enum(["pending", "delivered", "failed"]),
  attempts: z.number(),
  nextAttemptAt: z.string().nullable(),
  lastAttemptAt: z.string().nullable(),
  lastStatus: z.number().nullable(),
  lastError: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
  payload: z.unknown(),
});
export const deliveriesResponse = z.object({ deliveries: z.array(deliveryView) });
export const deliveryResponse = z.object({ delivery: deliveryView });

export type EndpointView = z.infer<typeof endpointView>;
export type DeliveryView = z.infer<typeof deliveryView>;

/** GET /api/webhook-events: the account's events, newest first, by type and time, paged. */
export const listEventsQuery = z.object({
  type: z.enum(OUTBOUND_EVENT_TYPES, { error: `must be an event type: ${OUTBOUND_EVENT_TYPES.join(", ")}` }).optional(),
  from: z.iso.datetime({ offset: true, error: "must be an ISO 8601 time" }).optional().meta({ description: "created at or after" }),
  to: z.iso.datetime({ offset: true, error: "must be an ISO 8601 time" }).optional().meta({ description: "created before" }),
  cursor: z
    .string()
    .regex(/^\d{1,19}$/, "must be a nextCursor from a previous page")
    .optional()
    .meta({ description: "the nextCursor of the previous page" }),
  limit: z.coerce.number({ error: "must be a number" }).int().min(1, "must be 1 to 100").max(100, "must be 1 to 100").default(50),
});
export const eventView = z.object({
  id: z.string(),
  type: z.string(),
  createdAt: z.string(),
  payload: z.unknown(),
  deliveries: z.array(
    z.object({
      id: z.string(),
      channel: z.enum(["webhook", "email"]),
      endpointId: z.string().nullable(),
      status: z.enum(["pending", "delivered", "failed"]),
      attempts: z.number(),
      lastStatus: z.number().nullable(),
      deliveredAt: z.string().nullable(),
    }),
  ),
});
export const eventsResponse = z.object({ events: z.array(eventView), nextCursor: z.string().nullable() });
export const eventResponse = z.object({ event: eventView });
export const recoverBody = z.object({
  since: z.iso
    .datetime({ offset: true, error: "must be an ISO 8601 time" })
    .meta({ description: "failed deliveries of events created at or after this time are sent again" }),
});
export const recoverResponse = z.object({ recovered: z.number() });
