import { processState } from "@/lib/process-state";
import type { SlotRequest } from "./store";

/**
 * AI slots counted in this process: for the embedded database, which one process opens by
 * construction, so its count is the whole count. Each statement on PGlite runs on the event loop;
 * a table and a function per AI request would cost the hot path about as much as the charge itself.
 * The count is the process's, not the bundle's: Next loads this module once per route bundle.
 */
const slots = processState("aiSlots", () => new Map<string, Map<string, number>>());

export function acquireProcessSlot(slot: SlotRequest): boolean {
  let held = slots.get(slot.key);
  if (!held) {
    held = new Map();
    slots.set(slot.key, held);
  }
  // A slot lapses at its lease (a release lost to a bug must not lock the user out for good).
  for (const [id, until] of held) if (until <= slot.nowMs) held.delete(id);
  if (held.size >= slot.cap) return false;
  held.set(slot.id, slot.nowMs + slot.leaseMs);
  return true;
}

export function releaseProcessSlot(key: string, id: string): void {
  const held = slots.get(key);
  if (!held) return;
  held.delete(id);
  if (held.size === 0) slots.delete(key);
}

/** Extends this process's slots' leases (their calls still run). */
export function renewProcessSlots(ids: Array<{ key: string; id: string }>, until: number): void {
  for (const { key, id } of ids) {
    const held = slots.get(key);
    if (held?.has(id)) held.set(id, until);
  }
}
