import { AsyncLocalStorage } from "node:async_hooks";
import { AppError } from "@/lib/errors";
import { metrics } from "@/lib/metrics";

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
