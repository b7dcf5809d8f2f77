import { dbRunner } from "@/lib/db/client";
import { INSTANCE_ID, LOST_AFTER_MS } from "@/lib/db/instance";
import type { SlotRequest } from "./store";

/**
 * AI slots in PostgreSQL (ai_request_slots), with the statements of a charge's own path: prepared once
 * per connection on the raw driver, and grouped. The acquisitions asked for within one event-loop
 * turn, or while a statement is being written, go out in one `acquire_ai_slots` statement (sorted by
 * user: every batch takes the users' advisory locks in the same order); the releases of one turn go
 * out in one DELETE. Under load that is one round trip for many requests instead of two per request
 * (bench:ai, docs/BENCHMARKS.md "Gateway speed"); a request alone waits one turn (setImmediate).
 */
const ONE = "SELECT acquire_ai_slot($1::text, $2::text, $3::int, $4::int, $5::text, $6::int) AS ok";
const MANY = "SELECT item, ok FROM acquire_ai_slots($1::text[], $2::text[], $3::int, $4::int, $5::text, $6::int)";
const RELEASE = "DELETE FROM ai_request_slots WHERE id = ANY($1::text[])";
/** Most slots asked for in one statement. */
const MAX_BATCH = 64;

interface Waiting {
  slot: SlotRequest;
  resolve: (taken: boolean) => void;
  reject: (error: unknown) => void;
}

const waiting: Waiting[] = [];
let writing = false;

/** Takes `slot` under its cap (true) or finds the cap reached (false). */
export function acquireDatabaseSlot(slot: SlotRequest): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    waiting.push({ slot, resolve, reject });
    if (!writing) {
      writing = true;
      setImmediate(() => void writeWaiting());
    }
  });
}

async function writeWaiting(): Promise<void> {
  try {
    while (waiting.length > 0) {
      const first = waiting[0].slot;
      // One batch shares the cap and the lease (both come from the configuration).
      const batch: Waiting[] = [];
      for (let i = 0; i < waiting.length && batch.length < MAX_BATCH; ) {
        const w = waiting[i];
        if (w.slot.cap === first.cap && w.slot.leaseMs === first.leaseMs) batch.push(...waiting.splice(i, 1));
        else i++;
      }
      await (batch.length === 1 ? acquireAlone(batch[0]) : acquireBatch(batch));
    }
  } finally {
    writing = false;
  }
}

async function acquireAlone(w: Waiting): Promise<void> {
  const { slot } = w;
  await (await dbRunner())
    .queryPrepared<{ ok: boolean }>("ai_slot_acquire_v1", ONE, [slot.key, slot.id, slot.cap, slot.leaseMs, INSTANCE_ID, LOST_AFTER_MS])
    .then((rows) => w.resolve(rows[0]?.ok === true), w.reject);
}

async function acquireBatch(batch: Waiting[]): Promise<void> {
  batch.sort((a, b) => (a.slot.key < b.slot.key ? -1 : a.slot.key > b.slot.key ? 1 : 0));
  let rows: { item: number; ok: boolean }[];
  try {
    rows = await (await dbRunner()).queryPrepared("ai_slots_acquire_v1", MANY, [
      batch.map((w) => w.slot.key),
      batch.map((w) => w.slot.id),
      batch[0].slot.cap,
      batch[0].slot.leaseMs,
      INSTANCE_ID,
      LOST_AFTER_MS,
    ]);
  } catch {
    // Nothing of the batch was written: each slot again, alone, with its own outcome or error.
    for (const w of batch) await acquireAlone(w);
    return;
  }
  const byItem = new Map(rows.map((r) => [Number(r.item), r.ok === true]));
  batch.forEach((w, i) => {
    const taken = byItem.get(i + 1);
    if (taken === undefined) w.reject(new Error("acquire_ai_slots returned no row for an item"));
    else w.resolve(taken);
  });
}

let releasing: { ids: string[]; done: Promise<void> } | null = null;

/** Gives a slot back; the releases of one event-loop turn share one statement. */
export function releaseDatabaseSlot(id: string): Promise<void> {
  if (!releasing) {
    const ids: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        releasing = null;
        dbRunner()
          .then((runner) => runner.queryPrepared("ai_slots_release_v1", RELEASE, [ids]))
          .then(() => resolve(), reject);
      });
    });
    releasing = { ids, done };
  }
  releasing.ids.push(id);
  return releasing.done;
}
