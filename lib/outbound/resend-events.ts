import { db } from "@/lib/db/client";
import { AppError, notFound } from "@/lib/errors";
import { log } from "@/lib/log";
import { deliverSoon } from "./deliver-outbound";
import { toEventView } from "./list-events";

/**
 * Sends one event again to every enabled endpoint it went to (delivered or failed; a receiver that lost
 * it, or a failure now fixed): its deliveries go back in their endpoints' queues, in order. Another
 * account's event, or an unknown id: 404.
 */
export async function resendEvent(accountId: string, eventId: string) {
  const prisma = await db();
  const event = /^msg_[\w-]{1,40}$/.test(eventId) ? await prisma.outboundEvent.findFirst({ where: { id: eventId, accountId } }) : null;
  if (!event) throw notFound("Event");
  const { count } = await prisma.outboundDelivery.updateMany({
    where: { eventId, endpointId: { not: null }, status: { in: ["delivered", "failed"] }, endpoint: { enabled: true } },
    data: { status: "pending", nextAttemptAt: new Date() },
  });
  if (count > 0) deliverSoon();
  log.info("outbound event resent", { accountId, eventId, deliveries: count });
  const fresh = await prisma.outboundEvent.findUniqueOrThrow({
    where: { id: eventId },
    include: { deliveries: { orderBy: { createdAt: "asc" } } },
  });
  return { event: toEventView(fresh) };
}

/**
 * Recovers an endpoint after an incident: every failed delivery of an event created at or after
 * `since` goes back in its queue, oldest first (as Svix's "recover failed messages since"). 409 while
 * the endpoint is disabled (enable it first: what waited goes out then anyway).
 */
export async function recoverEndpoint(accountId: string, endpointId: string, since: Date): Promise<{ recovered: number }> {
  const prisma = await db();
  const endpoint = /^[0-9a-f-]{36}$/i.test(endpointId)
    ? await prisma.webhookEndpoint.findFirst({ where: { id: endpointId, accountId } })
    : null;
  if (!endpoint) throw notFound("Endpoint");
  if (!endpoint.enabled) throw new AppError("conflict", "The endpoint is disabled: enable it first");
  const { count } = await prisma.outboundDelivery.updateMany({
    where: { endpointId, status: "failed", event: { createdAt: { gte: since } } },
    data: { status: "pending", nextAttemptAt: new Date() },
  });
  if (count > 0) deliverSoon();
  log.info("outbound endpoint recovered", { accountId, endpointId, recovered: count, since: since.toISOString() });
  return { recovered: count };
}
