import { z } from "zod";
import { env } from "@/lib/config/env";
import { recordDeliveryEvent, STATUS_BY_DELIVERY_EVENT, type DeliveryEventType } from "@/lib/email/record-delivery-event";
import { AppError } from "@/lib/errors";
import type { Logger } from "@/lib/log";
import { claimDelivery, finishDelivery } from "../deliveries";
import { observeDelivery } from "../observe-delivery";
import { verifySvixDelivery } from "../svix";

const envelope = z.object({ type: z.string().min(1) });
const deliveryEvent = z.object({
  type: z.enum(Object.keys(STATUS_BY_DELIVERY_EVENT) as [DeliveryEventType, ...DeliveryEventType[]]),
  created_at: z.string().optional(),
  data: z.object({ email_id: z.string().min(1) }),
});

function eventTime(value: string | undefined): Date {
  const parsed = value ? new Date(value) : new Date();
  return Number.isNaN(parsed.getTime()) ? new Date() : parsed;
}

/** processEmailWebhook, counted in webhook_deliveries_total (lib/webhooks/observe-delivery.ts). */
export function processEmailWebhook(rawBody: string, headers: Headers, log: Logger) {
  return observeDelivery(
    "email",
    ["email.delivered", "email.bounced", "email.complained", "email.sent", "email.delivery_delayed", "email.opened", "email.clicked"],
    () => processEmailWebhookUnobserved(rawBody, headers, log),
  );
}

/**
 * Verifies (svix, EMAIL_WEBHOOK_SECRET), records and applies one Resend-shaped delivery event. Other
 * event types are acknowledged and recorded as ignored; an event for a message we have no log of is
 * ignored too. A duplicate svix-id changes nothing.
 */
async function processEmailWebhookUnobserved(
  rawBody: string,
  headers: Headers,
  log: Logger,
): Promise<{ success: true; processed: string }> {
  const { id, payload } = verifySvixDelivery(rawBody, headers, env().EMAIL_WEBHOOK_SECRET);
  const head = envelope.safeParse(payload);
  if (!head.success) throw new AppError("bad_request", "Invalid payload: type is required");
  const type = head.data.type;
  const known = type in STATUS_BY_DELIVERY_EVENT;
  const parsed = deliveryEvent.safeParse(payload);
  if (known && !parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppError("bad_request", `Invalid ${type} payload: ${issue?.path.join(".") || "body"} ${issue?.message ?? ""}`.trim());
  }
  const event = parsed.success ? parsed.data : null;
  const { claimed, delivery } = await claimDelivery({
    source: "email",
    deliveryId: id,
    eventType: type,
    payload,
    objectId: event?.data.email_id ?? null,
    occurredAt: event ? eventTime(event.created_at) : null,
  });
  if (!claimed) return { success: true, processed: type };
  await runEmailDelivery(delivery.id, payload, log);
  return { success: true, processed: type };
}

/**
 * Applies a claimed email delivery event (a new one, or a stored one an operator replays) to the email
 * log and records its outcome: ignored for other event types and for messages we have no log of.
 */
export async function runEmailDelivery(deliveryRowId: string, payload: unknown, log: Logger): Promise<string> {
  const parsed = deliveryEvent.safeParse(payload);
  if (!parsed.success) {
    await finishDelivery(deliveryRowId, "ignored");
    return "event type ignored";
  }
  const event = parsed.data;
  try {
    const { updated, known } = await recordDeliveryEvent({
      type: event.type,
      providerMessageId: event.data.email_id,
      at: eventTime(event.created_at),
    });
    await finishDelivery(deliveryRowId, known ? "processed" : "ignored", known ? undefined : "no email log for this message id");
    log.info("email event processed", { type: event.type, deliveryRowId, updated });
    return known ? `email log ${STATUS_BY_DELIVERY_EVENT[event.type]}` : "no email log for this message id";
  } catch (error) {
    await finishDelivery(deliveryRowId, "failed", (error as Error).message);
    throw error;
  }
}
