import { dbRunner } from "./client";
import { isDatabaseUnavailable, isDatabaseUnreachable, whenDatabaseBack } from "./outage";

/**
 * The AI slots' table (ai_request_slots) as charges and the rate limiter share it: what a slot is to a
 * statement, the slot a request hands to its charge, and the slots given back, gathered.
 */

/** An AI slot as a statement takes it: whose, its id, the cap and its lease. */
export interface SlotTerms {
  key: string;
  id: string;
  cap: number;
  leaseMs: number;
}

/**
 * A request's AI slot still to be taken across instances (lib/ratelimit/ai-slot makes it): a charge
 * passed one (reserveCredits({ slot })) takes it with its reservation, in the same statement on
 * PostgreSQL, or alone just before when its statement cannot carry it (a budgeted key, an
 * organisation's wallet).
 */
export interface ChargeSlot {
  readonly terms: SlotTerms;
  /** Whether it is held across instances (a statement took it; its release gives it back). */
  held: boolean;
  /** Takes it in a statement of its own (429 at the cap). */
  holdAlone(): Promise<void>;
  /** The answer when a statement found the cap reached. */
  refusal(): Error;
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

let queued: { ids: string[]; done: Promise<void>; resolve: () => void; reject: (error: unknown) => void; timer: NodeJS.Timeout } | null =
  null;

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
    // The database out of reach: the releases are tried again until they land, so a user's slots come
    // back soon after it does, not at their lease's end (minutes).
    if ((isDatabaseUnreachable(error) || isDatabaseUnavailable(error)) && retryReleases(batch.ids)) return batch.resolve();
    batch.reject(error);
    throw error;
  }
}

/** Releases kept through an outage, bounded; retried with backoff (1 s doubling to 30 s). */
const MAX_KEPT_RELEASES = 100_000;
const kept = { ids: [] as string[], timer: null as NodeJS.Timeout | null, delay: 1000 };

function retryReleases(ids: string[]): boolean {
  if (kept.ids.length + ids.length > MAX_KEPT_RELEASES) return false;
  kept.ids.push(...ids);
  // The breaker finding the database back gives them back at once, not at their next backoff.
  whenDatabaseBack("kept-slot-releases", () => {
    if (!kept.timer) return;
    clearTimeout(kept.timer);
    kept.delay = 1000;
    releaseKept();
  });
  if (!kept.timer) {
    kept.timer = setTimeout(releaseKept, kept.delay);
    kept.timer.unref();
  }
  return true;
}

function releaseKept(): void {
  kept.timer = null;
  const again = kept.ids.splice(0, kept.ids.length);
  // Through the normal path: a failure keeps them again (with a longer wait), a success resets it.
  void Promise.all(again.map(releaseSlotSoon)).then(
    () => (kept.delay = 1000),
    () => undefined,
  );
  kept.delay = Math.min(30_000, kept.delay * 2);
}

/** Slot releases kept through an outage and not yet written (tests, health). */
export function keptSlotReleases(): number {
  return kept.ids.length;
}
