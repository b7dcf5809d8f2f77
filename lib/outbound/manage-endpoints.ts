import { db } from "@/lib/db/client";
import { AppError, notFound } from "@/lib/errors";
import type { OutboundDelivery, OutboundEvent, WebhookEndpoint } from "@/lib/generated/prisma/client";
import { log } from "@/lib/log";
import { deliverSoon, expireWaitingDeliveries } from "./deliver-outbound";
import { emitEvent } from "./emit-event";
import { checkEndpointUrl, privateTargetsAllowed, resolveSafely } from "./safe-target";
import { newSigningSecret } from "./sign-payload";
import type { DeliveryView, EndpointView } from "./schemas";

/** Endpoints one account may have. */
export const MAX_ENDPOINTS = 10;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function toEndpointView(e: WebhookEndpoint): EndpointView {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    events: e.events,
    format: e.format === "slack" ? "slack" : "standard",
    enabled: e.enabled,
    disabledAt: e.disabledAt?.toISOString() ?? null,
    disabledReason: e.disabledReason,
    previousSecretExpiresAt:
      e.previousSecret && e.previousSecretExpiresAt && e.previousSecretExpiresAt > new Date()
        ? e.previousSecretExpiresAt.toISOString()
        : null,
    createdAt: e.createdAt.toISOString(),
  };
}

export function toDeliveryView(d: OutboundDelivery & { event: OutboundEvent }): DeliveryView {
  return {
    id: d.id,
    eventId: d.eventId,
    type: d.event.type,
    status: d.status as DeliveryView["status"],
    attempts: d.attempts,
    nextAttemptAt: d.status === "pending" ? d.nextAttemptAt.toISOString() : null,
    lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
    lastStatus: d.lastStatus,
    lastError: d.lastError,
    deliveredAt: d.deliveredAt?.toISOString() ?? null,
    createdAt: d.createdAt.toISOString(),
    payload: d.event.payload,
  };
}

/** A URL an endpoint may have; in production its host must resolve to public addresses only (checked again at every send). */
async function checkedUrl(raw: string): Promise<string> {
  const url = checkEndpointUrl(raw);
  if (!privateTargetsAllowed()) {
    try {
      await resolveSafely(url.hostname.replace(/^\[|\]$/g, ""));
    } catch (error) {
      throw new AppError("validation_failed", `Invalid body: url: ${(error as Error).message}`, { param: "url" });
    }
  }
  return url.toString();
}

async function owned(accountId: string, endpointId: string): Promise<WebhookEndpoint> {
  const prisma = await db();
  const endpoint = UUID.test(endpointId) ? await prisma.webhookEndpoint.findFirst({ where: { id: endpointId, accountId } }) : null;
  if (!endpoint) throw notFound("Webhook endpoint");
  return endpoint;
}

export async function createEndpoint(
  accountId: string,
  createdBy: string,
  body: { url: string; events: string[]; description?: string | null; format?: "standard" | "slack" },
) {
  const prisma = await db();
  const url = await checkedUrl(body.url);
  const secret = newSigningSecret();
  // Counted under the account row's lock: concurrent creations (on any instance) queue, so the limit holds exactly.
  const endpoint = await prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT 1 FROM users WHERE id = ${accountId}::text FOR UPDATE`;
    if ((await tx.webhookEndpoint.count({ where: { accountId } })) >= MAX_ENDPOINTS)
      throw new AppError("forbidden", `An account may have ${MAX_ENDPOINTS} webhook endpoints; delete one first`);
    return tx.webhookEndpoint.create({
      data: {
        accountId,
        createdBy,
        url,
        events: [...new Set(body.events)],
        description: body.description ?? null,
        format: body.format ?? "standard",
        secret,
      },
    });
  });
  log.info("webhook endpoint created", { accountId, endpointId: endpoint.id });
  return { endpoint: toEndpointView(endpoint), secret };
}

export async function listEndpoints(accountId: string) {
  const prisma = await db();
  const rows = await prisma.webhookEndpoint.findMany({ where: { accountId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  return { endpoints: rows.map(toEndpointView) };
}

/** Changes an endpoint; enabling a disabled one sends what waited for it (events of the last 3 days). */
export async function updateEndpoint(
  accountId: string,
  endpointId: string,
  body: { url?: string; events?: string[]; description?: string | null; format?: "standard" | "slack"; enabled?: boolean },
) {
  await owned(accountId, endpointId);
  const prisma = await db();
  // What waited past its 3 days while the endpoint was off fails first; the rest goes out once it is on.
  if (body.enabled === true) await expireWaitingDeliveries(new Date(), endpointId);
  const endpoint = await prisma.webhookEndpoint.update({
    where: { id: endpointId },
    data: {
      ...(body.url !== undefined ? { url: await checkedUrl(body.url) } : {}),
      ...(body.events !== undefined ? { events: [...new Set(body.events)] } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.format !== undefined ? { format: body.format } : {}),
      ...(body.enabled === true
        ? { enabled: true, disabledAt: null, disabledReason: null }
        : body.enabled === false
          ? { enabled: false, disabledAt: new Date(), disabledReason: "Disabled by its owner" }
          : {}),
    },
  });
  if (body.enabled) deliverSoon();
  return { endpoint: toEndpointView(endpoint) };
}

export async function deleteEndpoint(accountId: string, endpointId: string): Promise<{ deleted: true }> {
  await owned(accountId, endpointId);
  const prisma = await db();
  await prisma.webhookEndpoint.delete({ where: { id: endpointId } });
  return { deleted: true };
}

/** How long a rotated secret keeps signing beside the new one unless the rotation says otherwise. */
export const DEFAULT_SECRET_OVERLAP_HOURS = 24;

/**
 * A new signing secret. The one it replaces keeps signing beside it (both signatures on every
 * delivery) for `overlapHours` (default 24; 0: it stops at once, for a secret that leaked), so a
 * receiver can switch without rejecting a delivery. Rotating again ends an overlap still running.
 */
export async function rotateEndpointSecret(accountId: string, endpointId: string, body: { overlapHours?: number } = {}) {
  const current = await owned(accountId, endpointId);
  const prisma = await db();
  const secret = newSigningSecret();
  const overlapMs = (body.overlapHours ?? DEFAULT_SECRET_OVERLAP_HOURS) * 60 * 60_000;
  const endpoint = await prisma.webhookEndpoint.update({
    where: { id: endpointId },
    data: {
      secret,
      previousSecret: overlapMs > 0 ? current.secret : null,
      previousSecretExpiresAt: overlapMs > 0 ? new Date(Date.now() + overlapMs) : null,
    },
  });
  log.info("webhook endpoint secret rotated", { accountId, endpointId, overlapHours: overlapMs / 3_600_000 });
  return { endpoint: toEndpointView(endpoint), secret };
}

/** An endpoint's deliveries, newest first (at most 100), with each event's payload. */
export async function listDeliveries(accountId: string, endpointId: string, status?: string) {
  await owned(accountId, endpointId);
  const prisma = await db();
  const rows = await prisma.outboundDelivery.findMany({
    where: { endpointId, ...(status ? { status } : {}) },
    include: { event: true },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 100,
  });
  return { deliveries: rows.map(toDeliveryView) };
}

/** Sends a delivery again (a failed one, or a delivered one the receiver lost): it goes out as soon as the endpoint's queue reaches it. */
export async function replayDelivery(accountId: string, endpointId: string, deliveryId: string) {
  const endpoint = await owned(accountId, endpointId);
  if (!endpoint.enabled) throw new AppError("conflict", "The endpoint is disabled: enable it first");
  const prisma = await db();
  const found = UUID.test(deliveryId) ? await prisma.outboundDelivery.findFirst({ where: { id: deliveryId, endpointId } }) : null;
  if (!found) throw notFound("Delivery");
  const delivery = await prisma.outboundDelivery.update({
    where: { id: deliveryId },
    data: { status: "pending", nextAttemptAt: new Date() },
    include: { event: true },
  });
  deliverSoon();
  return { delivery: toDeliveryView(delivery) };
}

/** A `webhook.test` event to this endpoint only (to check a receiver and its signature check). */
export async function sendTestEvent(accountId: string, endpointId: string) {
  const endpoint = await owned(accountId, endpointId);
  if (!endpoint.enabled) throw new AppError("conflict", "The endpoint is disabled: enable it first");
  const prisma = await db();
  const event = await prisma.$transaction((tx) =>
    emitEvent(tx, { accountId, type: "webhook.test", data: { message: "A test event from your dashboard" }, onlyEndpoint: endpointId }),
  );
  deliverSoon();
  const delivery = await prisma.outboundDelivery.findFirstOrThrow({ where: { eventId: event.id, endpointId }, include: { event: true } });
  return { delivery: toDeliveryView(delivery) };
}
