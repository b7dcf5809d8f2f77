import type { z } from "zod";
import type { WebhookDelivery } from "@/lib/generated/prisma/client";
import type { deliveryRow } from "./schemas";

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** A webhook delivery as the operator API shows it in lists (the payload only in the detail). */
export function toDeliveryRow(d: WebhookDelivery): z.infer<typeof deliveryRow> {
  return {
    id: d.id,
    source: d.source,
    eventType: d.eventType,
    status: d.status,
    error: d.error,
    userEmail: d.userEmail,
    userRef: d.userRef,
    objectId: d.objectId,
    occurredAt: iso(d.occurredAt),
    receivedAt: d.receivedAt.toISOString(),
    processedAt: iso(d.processedAt),
  };
}
