import { db, dbKind, dbRunner } from "@/lib/db/client";
import { releaseSlotSoon } from "@/lib/db/ai-slots";
import { acquireDatabaseSlot } from "./database-slots";
import { acquireProcessSlot, releaseProcessSlot, renewProcessSlots } from "./process-slots";
import { hitProcessWindows } from "./process-windows";
import type { RateLimitStore, SlotRequest, WindowCount, WindowHit } from "./store";

/**
 * Fixed windows in the rate_limit_windows table (PostgreSQL): every check is ONE atomic upsert for all
 * its keys. On the embedded database, which only this process opens, in this process's memory
 * (process-windows.ts), as its AI slots are.
 * Old windows are swept now and then (about one check in 200): those two of the longest window
 * (one hour) behind, whatever this check's own window (an API key's minute must not sweep an hour
 * that is still counting).
 */
const SWEEP_AFTER_MS = 2 * 60 * 60 * 1000;

export const databaseStore: RateLimitStore = {
  name: "database",
  async hit(hits: WindowHit[], windowMs: number, nowMs: number): Promise<WindowCount[]> {
    if ((await dbKind()) === "pglite") return hitProcessWindows(hits, windowMs, nowMs);
    const prisma = await db();
    const windowStart = new Date(Math.floor(nowMs / windowMs) * windowMs);
    const values = hits.map((_, i) => `($${i + 2}, $1, 1)`).join(", ");
    const rows = await prisma.$queryRawUnsafe<{ key: string; count: number }[]>(
      `INSERT INTO rate_limit_windows (key, window_start, count) VALUES ${values}
       ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_windows.count + 1
       RETURNING key, count`,
      windowStart,
      ...hits.map((h) => h.key),
    );
    if (Math.random() < 0.005) {
      void prisma.rateLimitWindow
        .deleteMany({ where: { windowStart: { lt: new Date(nowMs - Math.max(SWEEP_AFTER_MS, 2 * windowMs)) } } })
        .catch(() => undefined);
    }
    const counts = new Map(rows.map((r) => [r.key, Number(r.count)]));
    return hits.map((h) => ({ ...h, count: counts.get(h.key) ?? 1, resetMs: windowStart.getTime() + windowMs }));
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
