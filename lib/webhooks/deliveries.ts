import type { WebhookDelivery } from "@/lib/generated/prisma/client";
import { db } from "@/lib/db/client";

export type WebhookSource = "identity" | "payment" | "email";

export interface DeliveryInput {
  source: WebhookSource;
  deliveryId: string;
  eventType: string;
  payload: unknown;
  userEmail?: string | null;
  userRef?: string | null;
  objectId?: string | null;
  occurredAt?: Date | null;
}

/**
 * Records a delivery and claims it for processing. A delivery seen before is not claimed (a duplicate
 * changes nothing) unless its earlier processing failed, in which case this retry claims it again.
 */
export async function claimDelivery(input: DeliveryInput): Promise<{ claimed: boolean; delivery: WebhookDelivery }> {
  const prisma = await db();
  const inserted = await prisma.webhookDelivery.createManyAndReturn({
    data: [
      {
        source: input.source,
        deliveryId: input.deliveryId,
        eventType: input.eventType,
        payload: input.payload as never,
        userEmail: input.userEmail ?? null,
        userRef: input.userRef ?? null,
        objectId: input.objectId ?? null,
        occurredAt: input.occurredAt ?? null,
        status: "received",
      },
    ],
    skipDuplicates: true,
  });
  if (inserted.length === 1) return { claimed: true, delivery: inserted[0] };
  const retried = await prisma.webhookDelivery.updateManyAndReturn({
    where: { source: input.source, deliveryId: input.deliveryId, status: "failed" },
    data: { status: "received", error: null },
  });
  if (retried.length === 1) return { claimed: true, delivery: retried[0] };
  const existing = await prisma.webhookDelivery.findUniqueOrThrow({
    where: { source_deliveryId: { source: input.source, deliveryId: input.deliveryId } },
  });
  return { claimed: false, delivery: existing };
}

export type DeliveryOutcome = "processed" | "failed" | "pending" | "ignored";

export async function finishDelivery(id: string, status: DeliveryOutcome, error?: string): Promise<void> {
  const prisma = await db();
  await prisma.webhookDelivery.update({
    where: { id },
    data: { status, error: error?.slice(0, 2000) ?? null, processedAt: status === "pending" ? null : new Date() },
  });
}
