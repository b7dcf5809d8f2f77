import { db } from "@/lib/db/client";
import type { OutboundDelivery, OutboundEvent } from "@/lib/generated/prisma/client";
import type { z } from "zod";
import type { eventView, listEventsQuery } from "./schemas";

type EventView = z.infer<typeof eventView>;

export function toEventView(e: OutboundEvent & { deliveries: OutboundDelivery[] }): EventView {
  return {
    id: e.id,
    type: e.type,
    createdAt: e.createdAt.toISOString(),
    payload: e.payload,
    deliveries: e.deliveries.map((d) => ({
      id: d.id,
      channel: d.endpointId ? ("webhook" as const) : ("email" as const),
      endpointId: d.endpointId,
      status: d.status as EventView["deliveries"][number]["status"],
      attempts: d.attempts,
      lastStatus: d.lastStatus,
      deliveredAt: d.deliveredAt?.toISOString() ?? null,
    })),
  };
}

/**
 * The account's outbound events (kept while an endpoint or a mail was to receive them), newest first,
 * filtered by type and creation time, `limit` a page with a cursor for the next: each with where it
 * went and how that went (an email's address is not shown).
 */
export async function listEvents(
  accountId: string,
  query: z.infer<typeof listEventsQuery>,
): Promise<{ events: EventView[]; nextCursor: string | null }> {
  const prisma = await db();
  const rows = await prisma.outboundEvent.findMany({
    where: {
      accountId,
      ...(query.type ? { type: query.type } : {}),
      ...(query.from || query.to
        ? { createdAt: { ...(query.from ? { gte: new Date(query.from) } : {}), ...(query.to ? { lt: new Date(query.to) } : {}) } }
        : {}),
      ...(query.cursor ? { seq: { lt: BigInt(query.cursor) } } : {}),
    },
    include: { deliveries: { orderBy: { createdAt: "asc" } } },
    orderBy: { seq: "desc" },
    take: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  return {
    events: page.map(toEventView),
    nextCursor: rows.length > query.limit ? String(page[page.length - 1].seq) : null,
  };
}
