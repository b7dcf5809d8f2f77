import { db } from "@/lib/db/client";

/** Resend delivery events we apply, and the email-log status each sets. */
export const STATUS_BY_DELIVERY_EVENT = {
  "email.delivered": "delivered",
  "email.bounced": "bounced",
  "email.complained": "complained",
} as const;
export type DeliveryEventType = keyof typeof STATUS_BY_DELIVERY_EVENT;

/**
 * Statuses an event may move a log from. A later status never goes back: a complaint follows delivery,
 * a bounce beats a delivery reported out of order, and a replayed delivered event changes nothing.
 */
const MOVES_FROM: Record<DeliveryEventType, string[]> = {
  "email.delivered": ["queued", "sent", "failed"],
  "email.bounced": ["queued", "sent", "failed", "delivered"],
  "email.complained": ["queued", "sent", "failed", "delivered", "bounced"],
};

/**
 * Applies a delivery event to the email log of the provider's message id. `updated`: the log moved;
 * `known`: a log of that message exists (an event for a message we never sent is ignored).
 */
export async function recordDeliveryEvent(input: {
  type: DeliveryEventType;
  providerMessageId: string;
  at: Date;
}): Promise<{ updated: number; known: boolean }> {
  const prisma = await db();
  const { count } = await prisma.emailLog.updateMany({
    where: { providerMessageId: input.providerMessageId, status: { in: MOVES_FROM[input.type] } },
    data: { status: STATUS_BY_DELIVERY_EVENT[input.type], lastEventAt: input.at },
  });
  if (count > 0) return { updated: count, known: true };
  const exists = await prisma.emailLog.count({ where: { providerMessageId: input.providerMessageId } });
  return { updated: 0, known: exists > 0 };
}
