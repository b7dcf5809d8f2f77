import { log } from "@/lib/log";
import { withSpan } from "@/lib/tracing";
import { queryPrepared } from "./ledger";
import type { Reservation } from "./types";

/**
 * Settles reservations through the `settle_credits` database function (migration
 * 20261125000100_credit_functions): each is marked settled and its metadata (the model used, token
 * counts) merged into its ledger rows and operation row, several in one round trip.
 */
const SETTLE = "SELECT settle_credits($1::text[], $2::text[], $3::jsonb[]) AS settled";

interface Settlement {
  id: string;
  userId: string;
  metadata: string | null;
}

function settlementOf(reservation: Reservation, metadata?: Record<string, unknown>): Settlement | null {
  if (!reservation.charged || !reservation.id) return null;
  return { id: reservation.id, userId: reservation.userId, metadata: metadata && Object.keys(metadata).length ? JSON.stringify(metadata) : null };
}

async function write(batch: Settlement[]): Promise<void> {
  await queryPrepared("credits_settle_v2", SETTLE, [batch.map((s) => s.id), batch.map((s) => s.userId), batch.map((s) => s.metadata)]);
}

/** settleReservation, in a "credits.settle" span (lib/tracing). */
export function settleReservation(reservation: Reservation, metadata?: Record<string, unknown>): Promise<void> {
  return withSpan("credits.settle", { "credits.amount": reservation.amount }, async () => {
    const s = settlementOf(reservation, metadata);
    if (s) await write([s]);
  });
}

/**
 * Settlements waiting to be written (queueSettlement), per process. Settling changes nothing the
 * client's answer depends on (the credits were taken by the reservation), so the AI routes settle
 * after the response is sent, and concurrent requests' settlements go out in one statement.
 */
const queue: Settlement[] = [];

/**
 * Queues a settlement; `flushSettlements()` writes it (the route runs it after the response). A
 * process that dies first loses only this: the charge stands (balance and ledger row were written by
 * the reservation); an operation row left `reserved` is settled by the daily cleanup
 * (settleStaleReservations), and a plain charge's ledger row keeps the metadata it was reserved with.
 */
export function queueSettlement(reservation: Reservation, metadata?: Record<string, unknown>): void {
  const s = settlementOf(reservation, metadata);
  if (s) queue.push(s);
}

/**
 * How long a flush waits for more settlements before writing: concurrent requests' settlements then
 * go out in one statement, whose fixed cost dominates (on the embedded database, four settlements in
 * one statement cost about what one costs alone). Nothing waits on it but the settlement itself.
 */
const GATHER_MS = 10;
/** A queue this long is written at once. */
const GATHER_MAX = 100;

let draining: Promise<void> | null = null;
let wake: (() => void) | null = null;

/**
 * Writes the queued settlements: after GATHER_MS (or at once when GATHER_MAX are queued), one
 * statement for everything queued, then again for what arrived while it was written, until the queue
 * is empty. Concurrent callers (each request's after()) share that drain and each resolves once its
 * own settlement is written. A failure is logged: those settlements are left to the cleanup.
 */
export function flushSettlements(): Promise<void> {
  if (queue.length >= GATHER_MAX) wake?.();
  draining ??= drain().finally(() => {
    draining = null;
  });
  return draining;
}

async function drain(): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, GATHER_MS);
    wake = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  wake = null;
  while (queue.length > 0) {
    const batch = queue.splice(0, queue.length);
    await withSpan("credits.settle", { "credits.settlements": batch.length }, () => write(batch)).catch((error) =>
      log.error("settlements not written; the daily cleanup settles their operations", { count: batch.length, error }),
    );
  }
}
