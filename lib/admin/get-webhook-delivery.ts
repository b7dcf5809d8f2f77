import type { z } from "zod";
import { db } from "@/lib/db/client";
import { notFound, requireUuids } from "@/lib/errors";
import { toDeliveryRow } from "./delivery-row";
import type { deliveryDetailResponse } from "./schemas";

/**
 * One delivery with its stored payload: the verified event body as it arrived. Signature headers and
 * secrets are never stored, so none can be shown.
 */
export async function getWebhookDelivery(id: string): Promise<z.infer<typeof deliveryDetailResponse>> {
  requireUuids("Webhook delivery", id);
  const prisma = await db();
  const row = await prisma.webhookDelivery.findUnique({ where: { id } });
  if (!row) throw notFound("Webhook delivery");
  return { ...toDeliveryRow(row), deliveryId: row.deliveryId, payload: row.payload };
}
