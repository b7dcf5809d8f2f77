import { createHash, randomBytes } from "node:crypto";
import type { Prisma } from "@/lib/generated/prisma/client";
import { wants, type OutboundEventType } from "./event-types";

type Tx = Prisma.TransactionClient;

export interface EmittedEvent {
  id: string;
  deliveries: number;
}

/** An event id: `msg_` and 24 random characters (the webhook-id receivers dedupe on). */
export const newEventId = () => `msg_${randomBytes(18).toString("base64url")}`;
/** The event id of a fact that may be told more than once (a provider's webhook retried): the same fact, the same id. */
const eventIdOf = (dedupeKey: string) => `msg_${createHash("sha256").update(dedupeKey, "utf8").digest("base64url").slice(0, 24)}`;

/**
 * Writes an event to the outbox in the caller's transaction (so it exists exactly when what it tells
 * does), with one delivery per endpoint of the account that wants its type (a disabled one's waits
 * for it to be enabled again), and one per
 * email recipient given. Nothing is sent here: the delivery runner (deliver-outbound.ts) sends them
 * after the commit, in order per endpoint. The payload is the event's envelope:
 * `{ id, type, createdAt, accountId, data }`.
 */
export async function emitEvent(
  tx: Tx,
  input: {
    accountId: string;
    type: OutboundEventType;
    data: Record<string, unknown>;
    emailTo?: string[];
    onlyEndpoint?: string;
    /** Names the fact: an event emitted again with the same key is not written twice (exactly once across retries). */
    dedupeKey?: string;
  },
): Promise<EmittedEvent> {
  const id = input.dedupeKey ? eventIdOf(input.dedupeKey) : newEventId();
  const createdAt = new Date();
  const payload = { id, type: input.type, createdAt: createdAt.toISOString(), accountId: input.accountId, data: input.data };
  const endpoints = await tx.webhookEndpoint.findMany({
    // Disabled endpoints too: their deliveries wait, and go out (the last 3 days of them) when it is enabled again.
    where: { accountId: input.accountId, ...(input.onlyEndpoint ? { id: input.onlyEndpoint } : {}) },
    select: { id: true, events: true },
  });
  const targets = endpoints.filter((e) => input.onlyEndpoint || wants(e.events, input.type));
  const rows = [
    ...targets.map((e) => ({ eventId: id, endpointId: e.id, createdAt })),
    ...[...new Set(input.emailTo ?? [])].map((to) => ({ eventId: id, emailTo: to, createdAt })),
  ];
  // An event nobody is to receive is not kept (an account without endpoints pays no outbox row).
  if (rows.length === 0) return { id, deliveries: 0 };
  const { count } = await tx.outboundEvent.createMany({
    data: [{ id, accountId: input.accountId, type: input.type, payload: payload as Prisma.InputJsonValue, createdAt }],
    skipDuplicates: true,
  });
  // Told before (the same dedupe key): its deliveries exist already.
  if (count === 0) return { id, deliveries: 0 };
  await tx.outboundDelivery.createMany({ data: rows });
  return { id, deliveries: rows.length };
}
