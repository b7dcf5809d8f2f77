import { randomUUID } from "node:crypto";
import { env } from "@/lib/config/env";
import { AppError } from "@/lib/errors";
import { dependencyState, log } from "@/lib/log";
import { metrics } from "@/lib/metrics";
import { checkWindowLimit, currentStore, withTimeout } from "./index";
import { PendingSlot, tooManyAiRequests, withPendingSlot } from "@/lib/db/pending-slot";
import { acquireProcessSlot, releaseProcessSlot } from "./process-slots";
import type { RateLimitStore } from "./store";

/**
 * What keeps one account from tying up the AI routes for free (docs/API-NOTES.md "Limits on AI
 * requests"): at most AI_MAX_CONCURRENT_PER_USER AI requests in progress per user across every
 * instance (slots held in the rate-limit store), and a user whose AI requests keep failing
 * validation (refused at no charge) is refused altogether for the rest of the hour.
 */

/** An AI request's place under the per-user cap; release() once its answer is complete (idempotent). */
export interface AiSlot {
  release(): void;
  /** Runs the request's handler (with the slot still to take across instances, when it is: lib/db/pending-slot.ts). */
  run<T>(fn: () => T): T;
}

const NO_SLOT: AiSlot = { release: () => undefined, run: (fn) => fn() };

/** How long a slot lasts if its process dies before releasing it: a call's deadline, a stream's drain, and a margin. */
function leaseMs(): number {
  return 2 * env().AI_TIMEOUT_MS + 60_000;
}

/**
 * Takes one of the user's AI slots, or answers 429 when all are in use. The store failing or slow
 * lets the request through (as the rate limits do; logged when the store goes down and comes back).
 * On PostgreSQL the slot across instances is taken later, with the call's reservation (lib/db/pending-slot.ts).
 */
export async function acquireAiSlot(userId: string, options: { store?: RateLimitStore; nowMs?: number } = {}): Promise<AiSlot> {
  const e = env();
  const cap = e.AI_MAX_CONCURRENT_PER_USER;
  if (cap === 0 || (!e.RATE_LIMIT_ENABLED && !e.isProduction)) return NO_SLOT;
  const store = options.store ?? currentStore();
  const slot = { key: userId, id: randomUUID(), cap, leaseMs: leaseMs(), nowMs: options.nowMs ?? Date.now() };
  if (await store.takesSlotsWithCharges?.()) return pendingSlot(store, slot);
  if (!(await takeSlot(store, slot))) throw tooManyAiRequests(cap);
  return storeSlot(store, userId, slot.id);
}

/** Takes a slot in the store: true when taken, false at the cap; the store failing or slow lets the request through (unheld). */
async function takeSlot(store: RateLimitStore, slot: Parameters<RateLimitStore["acquireSlot"]>[0]): Promise<boolean> {
  const e = env();
  try {
    const taken = await withTimeout(store.acquireSlot(slot), e.RATE_LIMIT_TIMEOUT_MS + 250);
    dependencyState(`rate-limit store (${store.name})`, "up");
    return taken;
  } catch (error) {
    dependencyState(`rate-limit store (${store.name})`, "down", { store: store.name, error: (error as Error).message, effect: "requests are allowed without a limit" });
    metrics().rateLimitFailOpen.inc({ store: store.name });
    return true;
  }
}

/** Gives a held slot back, never in the answer's way: a slot whose release is lost lapses at its lease. */
function releaseStoreSlot(store: RateLimitStore, userId: string, id: string): void {
  void withTimeout(store.releaseSlot(userId, id), env().RATE_LIMIT_TIMEOUT_MS + 250).catch((error) =>
    log.debug("AI slot release failed; it lapses at its lease", { error: (error as Error).message }),
  );
}

function storeSlot(store: RateLimitStore, userId: string, id: string): AiSlot {
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      releaseStoreSlot(store, userId, id);
    },
    run: (fn) => fn(),
  };
}

/**
 * On PostgreSQL (lib/db/pending-slot.ts): this process's count before the body is read, the count across
 * instances with the reservation. Release gives back both (the second only if it was taken).
 */
function pendingSlot(store: RateLimitStore, slot: Parameters<RateLimitStore["acquireSlot"]>[0]): AiSlot {
  if (!acquireProcessSlot(slot)) throw tooManyAiRequests(slot.cap);
  const pending = new PendingSlot({ key: slot.key, id: slot.id, cap: slot.cap, leaseMs: slot.leaseMs }, () => takeSlot(store, { ...slot, nowMs: Date.now() }));
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      releaseProcessSlot(slot.key, slot.id);
      if (pending.held) releaseStoreSlot(store, slot.key, slot.id);
    },
    run: (fn) => withPendingSlot(pending, fn),
  };
}

/** Invalid AI requests (400, 413, 415) a user may send per hour before their AI requests are refused. */
export const INVALID_AI_REQUESTS = { limit: 300, windowMs: 60 * 60_000 };
const refusedUntil = new Map<string, number>();
const MAX_REFUSED = 10_000;

/** Answers 429 when this user's invalid AI requests passed the limit (as this process last counted them). */
export function refuseIfTooManyInvalid(userId: string, nowMs = Date.now()): void {
  const until = refusedUntil.get(userId);
  if (until === undefined) return;
  if (until <= nowMs) {
    refusedUntil.delete(userId);
    return;
  }
  throw tooManyInvalid(until, nowMs);
}

/**
 * Counts one invalid AI request (a validation failure, a body too large or of the wrong type: refused
 * at no charge, but read and parsed at our cost). Past the limit the user is refused for the rest of
 * the window by this process at once, and by every other at its own next count (the count is shared).
 */
export async function countInvalidAiRequest(userId: string, nowMs = Date.now()): Promise<void> {
  const outcome = await checkWindowLimit(`ai_invalid:user:${userId}`, INVALID_AI_REQUESTS.limit, INVALID_AI_REQUESTS.windowMs, { nowMs });
  if (outcome && !outcome.allowed) {
    if (refusedUntil.size >= MAX_REFUSED) refusedUntil.delete(refusedUntil.keys().next().value as string);
    if (!refusedUntil.has(userId)) log.warn("AI requests refused for a user sending invalid ones", { userId, until: new Date(outcome.reset * 1000).toISOString() });
    refusedUntil.set(userId, outcome.reset * 1000);
  }
}

function tooManyInvalid(untilMs: number, nowMs: number): AppError {
  metrics().rateLimitRejections.inc({ category: "ai_invalid" });
  const retryAfter = Math.max(1, Math.ceil((untilMs - nowMs) / 1000));
  return new AppError("rate_limited", `Too many invalid AI requests from this account (more than ${INVALID_AI_REQUESTS.limit} in an hour); retry after ${retryAfter} seconds`, {
    headers: { "Retry-After": String(retryAfter) },
    reason: "too_many_invalid_requests",
  });
}

