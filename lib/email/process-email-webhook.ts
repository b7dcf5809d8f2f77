import { z } from "zod";
import { observeDelivery } from "@/lib/webhooks/observe-delivery";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { Logger } from "@/lib/log";
import { claimDelivery, finishDelivery } from "@/lib/webhooks/deliveries";
import { verifySvixDelivery } from "@/lib/webhooks/svix";

/** Resend delivery events we apply, and the email-log status each sets. */
const STATUS_BY_EVENT = {
  "email.delivered": "delivered",
  "email.bounced": "bounced",
  "email.complained": "complained",
} as const;
type DeliveryEvent = keyof typeof STATUS_BY_EVENT;

/**
 * Statuses an event may move a log from. A later status never goes back: a complaint follows delivery,
 * a bounce beats a delivery reported out of order, and a replayed delivered event changes nothing.
 */
const MOVES_FROM: Record<DeliveryEvent, string[]> = {
  "email.delivered": ["queued", "sent", "failed"],
  "email.bounced": ["queued", "sent", "failed", "delivered"],
  "email.complained": ["queued", "sent", "failed", "delivered", "bounced"],
};

const envelope = z.object({ type: z.string().min(1) });
const deliveryEvent = z.object({
  type: z.enum(Object.keys(STATUS_BY_EVENT) as [DeliveryEvent, ...DeliveryEvent[]]),
  created_at: z.string().optional(),
  data: z.object({ email_id: z.string().min(1) }),
});

function eventTime(value: string | undefined): Date {
  const parsed = value ? new Date(value) : new Date();
  return Number.isNaN(parsed.getTime()) ? new Date() : parsed;
}

/** processEmailWebhook, counted in webhook_deliveries_total (lib/webhooks/observe-delivery.ts). */
export function processEmailWebhook(rawBody: string, headers: Headers, log: Logger) {
  return observeDelivery("email", ["email.delivered", "email.bounced", "email.complained", "email.sent", "email.delivery_delayed", "email.opened", "email.clicked"], () => processEmailWebhookUnobserved(rawBody, headers, log));
}

/**
 * Verifies (svix, EMAIL_WEBHOOK_SECRET), records and applies one Resend-shaped delivery event. Other
 * event types are acknowledged and recorded as ignored; an event for a message we have no log of is
 * ignored too. A duplicate svix-id changes nothing.
 */
async function processEmailWebhookUnobserved(rawBody: string, headers: Headers, log: Logger): Promise<{ success: true; processed: string }> {
  const { id, payload } = verifySvixDelivery(rawBody, headers, env().EMAIL_WEBHOOK_SECRET);
  const head = envelope.safeParse(payload);
  if (!head.success) throw new AppError("bad_request", "Invalid payload: type is required");
  const type = head.data.type;
  const known = type in STATUS_BY_EVENT;
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
  if (!event) {
    await finishDelivery(delivery.id, "ignored");
    return { success: true, processed: type };
  }
  try {
    const prisma = await db();
    const at = eventTime(event.created_at);
    const { count } = await prisma.emailLog.updateMany({
      where: { providerMessageId: event.data.email_id, status: { in: MOVES_FROM[event.type] } },
      data: { status: STATUS_BY_EVENT[event.type], lastEventAt: at },
    });
    if (count === 0) {
      const exists = await prisma.emailLog.count({ where: { providerMessageId: event.data.email_id } });
      await finishDelivery(delivery.id, exists ? "processed" : "ignored", exists ? undefined : "no email log for this message id");
    } else {
      await finishDelivery(delivery.id, "processed");
    }
    log.info("email event processed", { type, deliveryId: id, updated: count });
    return { success: true, processed: type };
  } catch (error) {
    await finishDelivery(delivery.id, "failed", (error as Error).message);
    throw error;
  }
}
