import { groupCommit, sortedOrder } from "@/lib/db/group-commit";
import { INSTANCE_ID, LOST_AFTER_MS } from "@/lib/db/instance";
import { takeSlotReleases, type SlotTerms } from "@/lib/db/ai-slots";
import { queryPrepared } from "./ledger";

/** The arguments of the `reserve_credits` database function for one reservation. */
export interface ReserveArgs {
  userId: string;
  amount: number;
  /** The current calendar month's start (ISO), for the free tier's rollover check. */
  monthStart: string;
  id: string;
  operation: string;
  metadata: string | null;
  key: string | null;
  bonusAlways: boolean;
  /**
   * The caller's AI slot, taken in the same statement (PostgreSQL; lib/ratelimit/ai-slot): the
   * cap reached answers "no_slot" and reserves nothing; a reservation that did not charge gives it back.
   */
  slot?: SlotTerms | null;
}

export interface ReserveRow {
  outcome:
    | "no_slot"
    | "charged"
    | "existing"
    | "conflict"
    | "insufficient"
    | "in_debt"
    | "rollover_due"
    | "no_balance"
    | "over_budget"
    | "no_key"
    | "no_member"
    | "over_cap"
    | "over_org_budget";
  reservation_id: string | null;
  amount: number | null;
  subscription_credits: number | null;
  bonus_held: number | null;
  auto_use: boolean | null;
  monthly_allocation: number | null;
  reset_at: Date | string | null;
  tier: string | null;
}

const COLUMNS = "outcome, reservation_id, amount, subscription_credits, bonus_held, auto_use, monthly_allocation, reset_at, tier";
/** One reservation, alone (exported for bench/pglite-statements.ts). */
export const RESERVE_ONE = `SELECT ${COLUMNS}
  FROM reserve_credits($1::text, $2::int, $3::timestamptz, $4::text, $5::text, $6::jsonb, $7::text, $8::boolean, $9::text)`;
const MANY = `SELECT item, ${COLUMNS}
  FROM reserve_credits_many($1::text[], $2::int[], $3::timestamptz, $4::text[], $5::text[], $6::jsonb[], $7::text[], $8::boolean, $9::text)`;

const HOLDING = `SELECT item, ${COLUMNS}
  FROM reserve_credits_holding_slots($1::text[], $2::int[], $3::timestamptz, $4::text[], $5::text[], $6::jsonb[], $7::text[], $8::boolean, $9::text,
                                     $10::text[], $11::text[], $12::int, $13::int, $14::int, $15::text[])`;

/** Most reservations written in one statement. */
const MAX_BATCH = 50;

function reserveOne(a: ReserveArgs): Promise<ReserveRow> {
  if (a.slot) return reserveMany([a]).then((rows) => rows[0] as ReserveRow);
  return queryPrepared<ReserveRow>("credits_reserve_v6", RESERVE_ONE, [
    a.userId,
    a.amount,
    a.monthStart,
    a.id,
    a.operation,
    a.metadata,
    a.key,
    a.bonusAlways,
    INSTANCE_ID,
  ]).then((rows) => rows[0]);
}

/**
 * One group of reservations in one `reserve_credits_many` statement, its items sorted by user so every
 * batch takes its balance row locks in the same order (no deadlock between instances).
 */
async function reserveMany(batch: ReserveArgs[]): Promise<Array<ReserveRow | undefined>> {
  const order = sortedOrder(batch, (a) => a.userId);
  const a = order.map((i) => batch[i]);
  const reserve = [
    a.map((x) => x.userId),
    a.map((x) => x.amount),
    a[0].monthStart,
    a.map((x) => x.id),
    a.map((x) => x.operation),
    a.map((x) => x.metadata),
    a.map((x) => x.key),
    a[0].bonusAlways,
    INSTANCE_ID,
  ];
  const slot = a[0].slot;
  if (!slot)
    return byItem(batch.length, order, await queryPrepared<ReserveRow & { item: number }>("credits_reserve_many_v2", MANY, reserve));
  // The slots this process gave back since the last statement: deleted first, in the same transaction.
  const released = takeSlotReleases();
  let rows: Array<ReserveRow & { item: number }>;
  try {
    rows = await queryPrepared<ReserveRow & { item: number }>("credits_reserve_holding_slots_v1", HOLDING, [
      ...reserve,
      a.map((x) => x.slot?.key ?? null),
      a.map((x) => x.slot?.id ?? null),
      slot.cap,
      slot.leaseMs,
      LOST_AFTER_MS,
      released?.ids ?? [],
    ]);
  } catch (error) {
    released?.again();
    throw error;
  }
  released?.done();
  return byItem(batch.length, order, rows);
}

/** A grouped statement's rows in the order of its batch (`order`: the batch's index of each item sent). */
function byItem(size: number, order: number[], rows: Array<ReserveRow & { item: number }>): Array<ReserveRow | undefined> {
  const results: Array<ReserveRow | undefined> = new Array(size);
  for (const row of rows) results[order[Number(row.item) - 1]] = row;
  return results;
}

/**
 * Runs `reserve_credits` for one reservation, grouped with the reservations of the same event-loop
 * turn (lib/db/group-commit.ts: on the embedded database four reservations in one statement cost about
 * 1.5 times one alone). One group shares the month start, the bonus rule and whether its items take
 * AI slots (with which cap and lease): the rare reservation that differs waits for the next. A group that fails as a whole (one item's concurrent idempotency-key
 * insert) is retried item by item, so each caller gets its own outcome.
 */
export const runReserveStatement: (args: ReserveArgs) => Promise<ReserveRow> = groupCommit<ReserveArgs, ReserveRow>({
  maxBatch: MAX_BATCH,
  sameBatch: (a, first) =>
    a.monthStart === first.monthStart &&
    a.bonusAlways === first.bonusAlways &&
    // Slots share the statement's cap and lease (both from the configuration).
    (a.slot ? a.slot.cap === first.slot?.cap && a.slot.leaseMs === first.slot.leaseMs : !first.slot),
  writeOne: reserveOne,
  writeMany: reserveMany,
});
