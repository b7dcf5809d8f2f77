import { recordOrganisationEvent } from "@/lib/audit/record-organisation-event";
import { db } from "@/lib/db/client";
import { deliverSoon } from "@/lib/outbound/deliver-outbound";
import { emitEvent } from "@/lib/outbound/emit-event";
import type { OutboundEventType } from "@/lib/outbound/event-types";

/**
 * Tells an account's webhook endpoints about a payment fact (`credits.purchased`, `payment.refunded`)
 * once it took effect. The fact's key makes the event id: a provider's webhook delivered again (after
 * a crash between the effect and this, or simply twice) tells it once, never twice, never not at all.
 */
export async function tellPaymentEvent(input: {
  accountId: string;
  type: Extract<OutboundEventType, "credits.purchased" | "payment.refunded">;
  factKey: string;
  data: Record<string, unknown>;
}): Promise<void> {
  const prisma = await db();
  const { deliveries } = await prisma.$transaction(async (tx) => {
    // An organisation's audit log records it too, once per fact.
    await recordOrganisationEvent(tx, {
      accountId: input.accountId,
      actorId: null,
      action: input.type === "credits.purchased" ? "wallet.purchased" : "wallet.refunded",
      targetType: "wallet",
      targetId: typeof input.data.paymentId === "string" ? input.data.paymentId : null,
      details: input.data,
      dedupeKey: `${input.type}:${input.factKey}`,
    });
    return emitEvent(tx, { accountId: input.accountId, type: input.type, data: input.data, dedupeKey: `${input.type}:${input.factKey}` });
  });
  if (deliveries > 0) deliverSoon();
}
