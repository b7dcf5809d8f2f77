import type { z } from "zod";
import { db } from "@/lib/db/client";
import { after, decodeCursor, page } from "./cursor";
import type { emailsListResponse } from "./schemas";

/** The email log, newest first (optionally one status), each message with its delivery events. */
export async function listEmailLogs(input: {
  status?: string;
  cursor?: string;
  limit: number;
}): Promise<z.infer<typeof emailsListResponse>> {
  const prisma = await db();
  const rows = await prisma.emailLog.findMany({
    where: { AND: [input.status ? { status: input.status } : {}, after("createdAt", decodeCursor(input.cursor))] },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
  });
  const { items, nextCursor } = page(rows, input.limit, (r) => r.createdAt);
  const messageIds = items.map((e) => e.providerMessageId).filter((id): id is string => Boolean(id));
  const events = messageIds.length
    ? await prisma.webhookDelivery.findMany({
        where: { source: "email", objectId: { in: messageIds } },
        orderBy: [{ occurredAt: "asc" }, { receivedAt: "asc" }],
        select: { objectId: true, eventType: true, status: true, occurredAt: true, receivedAt: true },
      })
    : [];
  return {
    emails: items.map((e) => ({
      id: e.id,
      userId: e.userId,
      to: e.to,
      subject: e.subject,
      type: e.type,
      status: e.status,
      provider: e.provider,
      providerMessageId: e.providerMessageId,
      error: e.error,
      lastEventAt: e.lastEventAt?.toISOString() ?? null,
      createdAt: e.createdAt.toISOString(),
      events: events
        .filter((ev) => ev.objectId === e.providerMessageId)
        .map((ev) => ({
          eventType: ev.eventType,
          status: ev.status,
          occurredAt: ev.occurredAt?.toISOString() ?? null,
          receivedAt: ev.receivedAt.toISOString(),
        })),
    })),
    nextCursor,
  };
}
