import type { z } from "zod";
import { db } from "@/lib/db/client";
import { after, decodeCursor, page } from "./cursor";
import { toDeliveryRow } from "./delivery-row";
import type { deliveriesListResponse, webhooksQuery } from "./schemas";

/** Webhook deliveries, newest first, by source, status, event type, or a buyer email / user / object id. */
export async function listWebhookDeliveries(input: z.infer<typeof webhooksQuery>): Promise<z.infer<typeof deliveriesListResponse>> {
  const prisma = await db();
  const q = input.q?.trim();
  const rows = await prisma.webhookDelivery.findMany({
    where: {
      AND: [
        input.source ? { source: input.source } : {},
        input.status ? { status: input.status } : {},
        input.type ? { eventType: input.type } : {},
        q ? { OR: [{ userEmail: q.toLowerCase() }, { userRef: q }, { objectId: q }] } : {},
        after("receivedAt", decodeCursor(input.cursor)),
      ],
    },
    orderBy: [{ receivedAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
  });
  const { items, nextCursor } = page(rows, input.limit, (r) => r.receivedAt);
  return { deliveries: items.map(toDeliveryRow), nextCursor };
}
