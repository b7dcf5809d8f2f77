import { AsyncLocalStorage } from "node:async_hooks";
import { AppError } from "@/lib/errors";
import { metrics } from "@/lib/metrics";
import { dbRunner } from "./client";

/**
 * An AI request's slot on PostgreSQL (docs/API-NOTES.md "Limits on AI requests"): this process's own
 * count is taken before the body is read (lib/ratelimit/ai-guard.ts), and the count across instances
 * with the call's credit reservation, in the same statement (`reserve_credits_holding_slots`): one
 * round trip before the provider instead of two. A reservation that cannot carry it (an API key with
 * a budget, an organisation's wallet, no credits in classic_saas mode) takes it alone first. Either
 * way the slot is held before anything is charged or sent upstream, and the cap reached answers 429.
 */

/** An AI slot as a statement takes it: whose, its id, the cap and its lease. */
export interface SlotTerms {
  key: string;
  id: string;
  cap: number;
  leaseMs: number;
}

export class PendingSlot {
  /** Whether the slot is held across instances (a statement took it; release gives it back). */
  held = false;

  constructor(
    readonly terms: SlotTerms,
    /** Takes the slot in a statement of its own (429 at the cap; the store down lets the call through, unheld). */
    private readonly takeAlone: () => Promise<boolean>,
  ) {}

  async holdAlone(): Promise<void> {
    if (this.held) return;
    if (!(await this.takeAlone())) throw tooManyAiRequests(this.terms.cap);
    this.held = true;
  }
}

const requestSlot = new AsyncLocalStorage<PendingSlot>();

/** Runs a request's handler with its slot to take: the first reservation it makes takes it. */
export function withPendingSlot<T>(slot: PendingSlot, fn: () => T): T {
  return requestSlot.run(slot, fn);
}

/** The current request's slot, if it is still to be taken. */
export function pendingSlot(): PendingSlot | null {
  const slot = requestSlot.getStore();
  return slot && !slot.held ? slot : null;
}

/** The answer when a user's AI requests in progress are at the cap. */
export function tooManyAiRequests(cap: number): AppError {
  metrics().rateLimitRejections.inc({ category: "ai_concurrent" });
  return new AppError("rate_limited", `Too many AI requests in progress for this account: at most ${cap} at once; retry when one has finished`, {
    headers: { "Retry-After": "1" },
    reason: "too_many_concurrent_requests",
  });
}

/**
 * Slots given back on PostgreSQL, gathered: the next reservation statement that takes slots deletes
 * them first (in its own transaction, so this process's count is exact when it counts), else one
 * DELETE after RELEASE_GATHER_MS. A charged chat then makes one statement of its own on the way in and
 * none for its slot on the way out. Another instance may see a slot given back here for at most that
 * long: it can only refuse (429), never let more than the cap through.
 */
const RELEASE_GATHER_MS = 5;
const RELEASE = "DELETE FROM ai_request_slots WHERE id = ANY($1::text[])";

interface ReleaseBatch {
  ids: string[];
  /** The statement deleted them. */
  done(): void;
  /** The statement failed for another reason (a reservation of its group): they wait for the next. */
  again(): void;
}

let queued: { ids: string[]; done: Promise<void>; resolve: () => void; reject: (error: unknown) => void; timer: NodeJS.Timeout } | null = null;

/** Gives a slot back (resolved once a statement has deleted it). */
export function releaseSlotSoon(id: string): Promise<void> {
  if (!queued) {
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const timer = setTimeout(() => void flushSlotReleases().catch(() => undefined), RELEASE_GATHER_MS);
    timer.unref();
    queued = { ids: [], done, resolve, reject, timer };
  }
  queued.ids.push(id);
  return queued.done;
}

/** The releases waiting, for a statement to carry (its first step deletes them). */
export function takeSlotReleases(): ReleaseBatch | null {
  const batch = queued;
  if (!batch) return null;
  queued = null;
  clearTimeout(batch.timer);
  return {
    ids: batch.ids,
    done: () => batch.resolve(),
    again: () => void Promise.all(batch.ids.map(releaseSlotSoon)).then(batch.resolve, batch.reject),
  };
}

/** Deletes the releases waiting now (the timer; a stopping server). Its callers hear a failure: their slots lapse at their lease. */
export async function flushSlotReleases(): Promise<void> {
  const batch = queued;
  if (!batch) return;
  queued = null;
  clearTimeout(batch.timer);
  try {
    await (await dbRunner()).queryPrepared("ai_slots_release_v1", RELEASE, [batch.ids]);
    batch.resolve();
  } catch (error) {
    batch.reject(error);
    throw error;
  }
}
