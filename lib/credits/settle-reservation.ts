import { flags } from "@/lib/config/flags";
import { log } from "@/lib/log";
import { metrics } from "@/lib/metrics";
import { withSpan } from "@/lib/tracing";
import { bonusSpendable, queryPrepared } from "./ledger";
import { chargeSettled } from "./charge-observers";
import { replayKeptSettlements } from "./settlement-journal";
import { flushKeptSettlements, isOutage, keepSettlement } from "./settlement-retries";
import { UNLIMITED_CREDITS, type Reservation } from "./types";

export interface SettleInput {
  /**
   * What the work really cost, in credits (default: the reserved amount). Less returns the rest to
   * the buckets it came from; more draws the difference, never below zero (what cannot be drawn is
   * recorded as uncollected).
   */
  amount?: number;
  /** Merged into the charge's ledger rows: model, token counts, provider cost. */
  metadata?: Record<string, unknown>;
  /** What the call cost upstream, in USD millionths (the operator's usage report). */
  costMicros?: number;
}

export interface Settlement {
  /** False when the charge was not reserved any more (settled or refunded before) or nothing was charged. */
  settled: boolean;
  /** Credits finally charged. */
  charged: number;
  /** Usable credits after the settlement. */
  remaining: number;
  /**
   * The database could not take it (an outage): kept and written again until it lands
   * (settlement-retries.ts); `charged` is what that write charges, `remaining` the balance before it.
   */
  deferred?: boolean;
}

/** A settlement as the statement reported it: with the subscription credits after it, for the charge's observers. */
type Written = Settlement & { subscriptionCredits?: number };

interface SettleRow {
  item: number;
  outcome: "settled" | "not_reserved";
  charged: number | null;
  subscription_credits: number | null;
  bonus_held: number | null;
  auto_use: boolean | null;
}

interface Waiting {
  reservation: Reservation;
  input: SettleInput;
  /** Settled at the amount reserved, and nobody reads the balance it leaves: settle_exact_charges. */
  exact: boolean;
  /** How many times it was written before (kept settlements). */
  attempts: number;
  resolve: (s: Written) => void;
  reject: (error: unknown) => void;
}

/**
 * Settles reserved charges through the `settle_charges` database function
 * (prisma/functions/settle_charges.sql): the charge becomes its final amount (the unused part given
 * back in the give-back order, or the rest drawn in the draw order), its usage recorded, in one statement. Group commit, as for reservations: the
 * first settlement waits one event-loop turn, those arriving while a statement is written wait for the
 * next, and each group goes out in one statement sorted by user (the same lock order everywhere).
 * A stream awaits it before its closing event; a JSON answer, whose price is known before it leaves,
 * settles in the background right after (settleInBackground). Either way a charge still `reserved`
 * long after its call was never shown as delivered, and the cleanup refunds it.
 */
const SETTLE = `SELECT item, outcome, charged, subscription_credits, bonus_held, auto_use
  FROM settle_charges($1::text[], $2::text[], $3::int[], $4::jsonb[], $5::bigint[], $6::boolean)`;
/** Settlements at the amount reserved (exported for bench/pglite-statements.ts). */
export const SETTLE_EXACT = "SELECT item FROM settle_exact_charges($1::text[], $2::text[], $3::jsonb[], $4::bigint[])";
const MAX_BATCH = 50;
const waiting: Waiting[] = [];
let writing = false;
let current: Promise<void> = Promise.resolve();

/** settleReservation, in a "credits.settle" span (lib/tracing). */
export function settleReservation(reservation: Reservation, input: SettleInput = {}): Promise<Settlement> {
  return settle(reservation, input, false);
}

function settle(reservation: Reservation, input: SettleInput, background: boolean, attempts = 0): Promise<Settlement> {
  if (!reservation.charged || !reservation.id) {
    return Promise.resolve({ settled: false, charged: 0, remaining: reservation.charged ? reservation.remaining : UNLIMITED_CREDITS });
  }
  if (input.amount !== undefined && (!Number.isInteger(input.amount) || input.amount < 0)) {
    return Promise.reject(new Error(`settlement amount must be a non-negative integer, got ${input.amount}`));
  }
  return withSpan("credits.settle", { "credits.amount": input.amount ?? reservation.amount }, () => {
    // In the background at the amount reserved (a flat price): nothing moves between buckets and the
    // remaining balance is read by nobody, so the lighter statement does (settle_exact_charges).
    const exact = background && (input.amount === undefined || input.amount === reservation.amount);
    const settled = new Promise<Written>((resolve, reject) => waiting.push({ reservation, input, exact, attempts, resolve, reject })).then(
      ({ subscriptionCredits, ...s }): Settlement => {
        if (s.settled && !s.deferred) tellSettled(reservation, s, subscriptionCredits);
        return s;
      },
    );
    if (!writing) {
      writing = true;
      current = new Promise<void>((started) => setImmediate(started)).then(writeWaiting);
    }
    return settled;
  });
}

/** Settlements started by settleInBackground and not yet written. */
let inBackground = 0;

/**
 * Settles without making the caller wait: for an answer whose price is already known (its usage
 * priced in memory), the statement is written right after the answer leaves, in the next group. A
 * process that dies first leaves the charge reserved and the cleanup refunds it (the crash errs toward
 * the user). Failures are logged. The route wrapper keeps the request alive until it is written
 * (pendingSettlements / drainSettlements), and shutdown drains it.
 */
export function settleInBackground(reservation: Reservation, input: SettleInput = {}): void {
  if (!reservation.charged || !reservation.id) return;
  inBackground++;
  void settle(reservation, input, true)
    .catch((error) =>
      log.error("settlement not written; the charge stays reserved and the cleanup refunds it", { reservationId: reservation.id, error }),
    )
    .finally(() => {
      inBackground--;
    });
}

/** Settlements queued or being written (the wrapper drains them after the response). */
export function pendingSettlements(): number {
  return inBackground + waiting.length;
}

/** Resolves once every settlement queued so far is written (after a response, shutdown, tests). */
export async function drainSettlements(): Promise<void> {
  while (writing || inBackground > 0) {
    if (writing) await current;
    else await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

async function writeWaiting(): Promise<void> {
  try {
    while (waiting.length > 0) {
      const taken = waiting.splice(0, MAX_BATCH);
      const exact = taken.filter((w) => w.exact);
      if (exact.length > 0) await writeExact(exact);
      const batch = exact.length === taken.length ? [] : taken.filter((w) => !w.exact);
      if (batch.length === 0) continue;
      batch.sort((a, b) => (a.reservation.userId < b.reservation.userId ? -1 : a.reservation.userId > b.reservation.userId ? 1 : 0));
      let rows: SettleRow[];
      try {
        rows = await write(batch);
      } catch {
        // Nothing of the batch was written: each one again, alone, with its own outcome or error.
        for (const w of batch)
          await write([w]).then(
            (one) => deliver([w], one),
            (error) => failed(w, error),
          );
        continue;
      }
      deliver(batch, rows);
    }
  } finally {
    // Set in the same turn as the last check of the queue: a settlement queued later starts a new writer.
    writing = false;
  }
}

/**
 * Settlements at the amount reserved, in one settle_exact_charges statement, sorted by account like
 * every grouped statement (balance rows locked in one order). A batch that fails goes through
 * settle_charges item by item.
 */
async function writeExact(batch: Waiting[]): Promise<void> {
  batch.sort((a, b) => (a.reservation.userId < b.reservation.userId ? -1 : a.reservation.userId > b.reservation.userId ? 1 : 0));
  let settled: Set<number>;
  try {
    const rows = await queryPrepared<{ item: number }>("credits_settle_exact_v1", SETTLE_EXACT, [
      batch.map((w) => w.reservation.id),
      batch.map((w) => w.reservation.userId),
      batch.map((w) => metadataOf(w.input)),
      batch.map((w) => costOf(w.input)),
    ]);
    settled = new Set(rows.map((r) => Number(r.item)));
  } catch {
    for (const w of batch)
      await write([w]).then(
        (one) => deliver([w], one),
        (error) => failed(w, error),
      );
    return;
  }
  batch.forEach((w, i) =>
    w.resolve(
      settled.has(i + 1)
        ? {
            settled: true,
            charged: w.reservation.amount,
            remaining: w.reservation.remaining,
            subscriptionCredits: w.reservation.remaining - (w.reservation.allowance?.usableBonusCredits ?? 0),
          }
        : { settled: false, charged: 0, remaining: w.reservation.remaining },
    ),
  );
}

/**
 * A settlement the database did not take: kept for a retry when the database is out of reach (the
 * caller is answered with the charge the retry writes), else the caller gets the error.
 */
function failed(w: Waiting, error: unknown): void {
  const kept =
    isOutage(error) &&
    keepSettlement({ reservation: w.reservation, input: w.input, attempts: w.attempts }, (k) =>
      settle(k.reservation, k.input, true, k.attempts),
    );
  if (!kept) return w.reject(error);
  w.resolve({ settled: true, charged: w.input.amount ?? w.reservation.amount, remaining: w.reservation.remaining, deferred: true });
}

/**
 * For a stopping server: the settlements kept through an outage written now, waiting at most `ms`.
 * What is still kept then is logged with its amounts; the sweep refunds those charges later.
 */
/** At start, before the first sweep: the settlements a stopped server on this machine kept, written. */
export function replayJournaledSettlements(): Promise<number> {
  return replayKeptSettlements((k) => settle(k.reservation, k.input, true, k.attempts));
}

export async function flushKeptSettlementsBeforeExit(ms: number): Promise<number> {
  const left = await flushKeptSettlements((k) => settle(k.reservation, k.input, true, k.attempts), ms);
  if (left.length > 0) {
    log.error("settlements not written before exit (the database is still unavailable)", {
      count: left.length,
      charges: left
        .slice(0, 100)
        .map((k) => ({ reservationId: k.reservation.id, userId: k.reservation.userId, amount: k.input.amount ?? k.reservation.amount })),
    });
  }
  return left.length;
}

const metadataOf = (input: SettleInput) => (input.metadata && Object.keys(input.metadata).length ? JSON.stringify(input.metadata) : null);
const costOf = (input: SettleInput) => (input.costMicros === undefined ? null : Math.ceil(input.costMicros));

function write(batch: Waiting[]): Promise<SettleRow[]> {
  const bonusAlways = !flags().creditsUserToggle;
  return queryPrepared<SettleRow>("credits_settle_charges_v1", SETTLE, [
    batch.map((w) => w.reservation.id),
    batch.map((w) => w.reservation.userId),
    batch.map((w) => w.input.amount ?? null),
    batch.map((w) => metadataOf(w.input)),
    batch.map((w) => costOf(w.input)),
    bonusAlways,
  ]);
}

function deliver(batch: Waiting[], rows: SettleRow[]): void {
  const byItem = new Map(rows.map((r) => [Number(r.item), r]));
  const toggle = flags().creditsUserToggle;
  batch.forEach((w, i) => {
    const row = byItem.get(i + 1);
    if (!row) return w.reject(new Error("settle_charges returned no row for an item"));
    const usableBonus = bonusSpendable(Boolean(row.auto_use), toggle) ? Number(row.bonus_held ?? 0) : 0;
    const remaining = row.subscription_credits === null ? w.reservation.remaining : Number(row.subscription_credits) + usableBonus;
    if (row.outcome !== "settled") return w.resolve({ settled: false, charged: 0, remaining });
    const charged = Number(row.charged ?? 0);
    const returned = w.reservation.amount - charged;
    const uncollected = (w.input.amount ?? w.reservation.amount) - charged;
    if (uncollected > 0) {
      metrics().creditsUncollected.inc({ operation: w.reservation.operation ?? "unknown" }, uncollected);
      log.warn("a settlement could not collect all it was owed (the quote was not an upper bound)", {
        reservationId: w.reservation.id,
        operation: w.reservation.operation,
        uncollected,
      });
    }
    if (returned > 0) metrics().creditsRefunded.inc({ operation: w.reservation.operation ?? "unknown" }, returned);
    else if (returned < 0) metrics().creditsCharged.inc({ operation: w.reservation.operation ?? "unknown" }, -returned);
    w.resolve({ settled: true, charged, remaining, subscriptionCredits: Number(row.subscription_credits ?? 0) });
  });
}

/** What a settled charge did, for its observers (lib/credits/charge-observers.ts): the buckets and the key's window after it. */
function tellSettled(reservation: Reservation, s: Settlement, subscriptionCredits: number | undefined): void {
  if (!reservation.allowance) return;
  const key = reservation.key ? { ...reservation.key, spent: reservation.key.spent - reservation.amount + s.charged } : undefined;
  chargeSettled({
    accountId: reservation.userId,
    operation: reservation.operation,
    charged: s.charged,
    subscriptionCredits: subscriptionCredits ?? s.remaining - reservation.allowance.usableBonusCredits,
    remaining: s.remaining,
    allowance: reservation.allowance,
    key,
    teamCharge: reservation.teamCharge,
    memberId: reservation.memberId,
  });
}
