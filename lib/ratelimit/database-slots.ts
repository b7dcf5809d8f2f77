import { dbRunner } from "@/lib/db/client";
import { groupCommit, sortedOrder } from "@/lib/db/group-commit";
import { INSTANCE_ID, LOST_AFTER_MS } from "@/lib/db/instance";
import type { SlotRequest } from "./store";

/**
 * AI slots in PostgreSQL (ai_request_slots), with the statements of a charge's own path: prepared once
 * per connection on the raw driver, and grouped. The acquisitions asked for within one event-loop
 * turn, or while a statement is being written, go out in one `acquire_ai_slots` statement
 * (lib/db/group-commit.ts). Under load that is one round trip for many requests instead of one per
 * request (docs/BENCHMARKS.md "Gateway speed (issue 36)"); a request alone waits one turn
 * (setImmediate). A charged call's slot is usually taken by its reservation instead (lib/credits reserveCredits({ slot })).
 */
const ONE = "SELECT acquire_ai_slot($1::text, $2::text, $3::int, $4::int, $5::text, $6::int) AS ok";
const MANY = "SELECT item, ok FROM acquire_ai_slots($1::text[], $2::text[], $3::int, $4::int, $5::text, $6::int)";
/** Most slots asked for in one statement. */
const MAX_BATCH = 64;

function acquireOne(slot: SlotRequest): Promise<boolean> {
  return dbRunner()
    .then((runner) =>
      runner.queryPrepared<{ ok: boolean }>("ai_slot_acquire_v1", ONE, [
        slot.key,
        slot.id,
        slot.cap,
        slot.leaseMs,
        INSTANCE_ID,
        LOST_AFTER_MS,
      ]),
    )
    .then((rows) => rows[0]?.ok === true);
}

/** One group in one `acquire_ai_slots` statement, sorted by user (the advisory locks in one order). */
async function acquireMany(batch: SlotRequest[]): Promise<Array<boolean | undefined>> {
  const order = sortedOrder(batch, (s) => s.key);
  const rows = await (
    await dbRunner()
  ).queryPrepared<{ item: number; ok: boolean }>("ai_slots_acquire_v1", MANY, [
    order.map((i) => batch[i].key),
    order.map((i) => batch[i].id),
    batch[0].cap,
    batch[0].leaseMs,
    INSTANCE_ID,
    LOST_AFTER_MS,
  ]);
  const results: Array<boolean | undefined> = new Array(batch.length);
  for (const row of rows) results[order[Number(row.item) - 1]] = row.ok === true;
  return results;
}

/** Takes `slot` under its cap (true) or finds the cap reached (false); a group shares the cap and the lease (both from the configuration). */
export const acquireDatabaseSlot: (slot: SlotRequest) => Promise<boolean> = groupCommit<SlotRequest, boolean>({
  maxBatch: MAX_BATCH,
  sameBatch: (a, first) => a.cap === first.cap && a.leaseMs === first.leaseMs,
  writeOne: acquireOne,
  writeMany: acquireMany,
});
