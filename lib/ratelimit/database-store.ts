import { db, dbKind, dbRunner } from "@/lib/db/client";
import { releaseSlotSoon } from "@/lib/db/ai-slots";
import { acquireDatabaseSlot } from "./database-slots";
import { acquireProcessSlot, releaseProcessSlot, renewProcessSlots } from "./process-slots";
import { hitDatabaseWindows } from "./database-windows";
import { hitProcessWindows } from "./process-windows";
import type { RateLimitStore, SlotRequest, WindowCount, WindowHit } from "./store";

/**
 * Fixed windows in the rate_limit_windows table (PostgreSQL): every check is one atomic upsert for all
 * its keys, shared with the checks of the same event-loop turn (database-windows.ts). On the embedded
 * database, which only this process opens, in this process's memory (process-windows.ts), as its AI
 * slots are.
 * Old windows are swept now and then (about one check in 200): those two of the longest window
 * (one hour) behind, whatever this check's own window (an API key's minute must not sweep an hour
 * that is still counting).
 */
const SWEEP_AFTER_MS = 2 * 60 * 60 * 1000;

export const databaseStore: RateLimitStore = {
  name: "database",
  async hit(hits: WindowHit[], windowMs: number, nowMs: number): Promise<WindowCount[]> {
    if ((await dbKind()) === "pglite") return hitProcessWindows(hits, windowMs, nowMs);
    const counts = await hitDatabaseWindows(hits, windowMs, nowMs);
    if (Math.random() < 0.005) {
      void (await db()).rateLimitWindow
        .deleteMany({ where: { windowStart: { lt: new Date(nowMs - Math.max(SWEEP_AFTER_MS, 2 * windowMs)) } } })
        .catch(() => undefined);
    }
    return counts;
  },

  /**
   * Slots in ai_request_slots (acquire_ai_slot: the key's slots serialized by an advisory lock, lapsed
   * ones and those of a process known gone dropped, then counted), grouped per event-loop turn
   * (database-slots.ts). On the embedded database, which only this process opens, in this process's
   * memory (process-slots.ts).
   */
  async acquireSlot(slot: SlotRequest): Promise<boolean> {
    if ((await dbKind()) === "pglite") return acquireProcessSlot(slot);
    return acquireDatabaseSlot(slot);
  },

  /** On PostgreSQL, with the reservation (`reserve_credits_holding_slots`): one round trip less before the provider. */
  async takesSlotsWithCharges(): Promise<boolean> {
    return (await dbKind()) === "postgres";
  },

  /** One UPDATE for every slot this process holds (those given back meanwhile are gone: nothing to extend). */
  async renewSlots(slots: Array<{ key: string; id: string }>, leaseMs: number, nowMs: number): Promise<void> {
    renewProcessSlots(slots, nowMs + leaseMs);
    if ((await dbKind()) === "pglite") return;
    await (
      await dbRunner()
    ).queryPrepared(
      "ai_slots_renew_v1",
      "UPDATE ai_request_slots SET expires_at = now() + make_interval(secs => $2::int / 1000.0) WHERE id = ANY($1::text[])",
      [slots.map((s) => s.id), leaseMs],
    );
  },

  async releaseSlot(key: string, id: string): Promise<void> {
    if ((await dbKind()) === "pglite") return releaseProcessSlot(key, id);
    // With the next reservation statement that takes slots, else in one DELETE a few ms later.
    return releaseSlotSoon(id);
  },
};
