import { db } from "@/lib/db/client";
import { isInvoiceResource, isSnapshotEvent } from "@/lib/billing/subscriptions/subscription-state";
import { eventEmail, type PaymentEvent } from "./payload";

/**
 * Our user an event belongs to: custom_data.user_id (set by our checkout), else the owner of the
 * subscription it is about, else the user with the buyer's email (registration-first checkout).
 * Null when none exists yet: the delivery is then kept as pending until that user appears.
 */
export async function resolvePaymentUser(event: PaymentEvent): Promise<string | null> {
  const prisma = await db();
  const customId = event.custom.user_id;
  if (typeof customId === "string" && customId) {
    const user = await prisma.user.findUnique({ where: { id: customId }, select: { id: true } });
    if (user) return user.id;
  }
  const subscriptionId = isInvoiceResource(event.name)
    ? String(event.data.attributes.subscription_id)
    : isSnapshotEvent(event.name)
      ? event.data.id
      : null;
  if (subscriptionId) {
    const sub = await prisma.subscription.findUnique({ where: { providerSubscriptionId: subscriptionId }, select: { userId: true } });
    if (sub) return sub.userId;
  }
  const email = eventEmail(event);
  if (email) {
    const user = await prisma.user.findUnique({ where: { email }, select: { id: true } });
    if (user) return user.id;
  }
  return null;
}
