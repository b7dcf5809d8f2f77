import { randomUUID } from "node:crypto";
import { env } from "@/lib/config/env";
import type { ChargeSlot, SlotTerms } from "@/lib/db/ai-slots";
import { dependencyState, log } from "@/lib/log";
import { processState } from "@/lib/process-state";
import { metrics } from "@/lib/metrics";
import { currentStore, withTimeout } from "../index";
import { acquireProcessSlot, releaseProcessSlot } from "../process-slots";
import type { RateLimitStore, SlotRequest } from "../store";
import { tooManyAiRequests } from "./too-many-ai-requests";

/**
 * At most AI_MAX_CONCURRENT_PER_USER AI requests in progress per user across every instance (docs/
 * API-NOTES.md "Limits on AI requests"), slots held in the rate-limit store. The route wrapper takes
 * a request's slot before its body is read and gives it back when its answer is complete.
 */
export interface AiSlot {
  /** Gives the slot back (idempotent); never in the answer's way. */
  release(): void;
  /**
   * The part still to take across instances, with the call's charge (the database store on
   * PostgreSQL): the request passes it to its charge, reserveCredits({ slot }). Null: nothing left.
   */
  charge: ChargeSlot | null;
}

const NO_SLOT: AiSlot = { release: () => undefined, charge: null };

/**
 * How long a slot lasts if its process dies (or its release is lost) before giving it back: short,
 * and renewed every SLOT_RENEW_MS while its call runs, so a lost release locks a user out of AI for
 * at most a minute, however long AI_TIMEOUT_MS is.
 */
export const SLOT_LEASE_MS = 60_000;
export const SLOT_RENEW_MS = 20_000;
function leaseMs(): number {
  return SLOT_LEASE_MS;
}

/** The slots this process holds in a store, renewed together: one statement per store every SLOT_RENEW_MS. */
interface Leased {
  store: RateLimitStore;
  key: string;
  id: string;
}
const leases = processState("ai-slot-leases", () => ({ held: new Map<string, Leased>(), timer: null as NodeJS.Timeout | null }));

function lease(store: RateLimitStore, key: string, id: string): void {
  const l = leases;
  l.held.set(id, { store, key, id });
  if (!l.timer) {
    l.timer = setInterval(() => void renewHeldSlots(), SLOT_RENEW_MS);
    l.timer.unref();
  }
}

function unlease(id: string): void {
  const l = leases;
  l.held.delete(id);
  if (l.held.size === 0 && l.timer) {
    clearInterval(l.timer);
    l.timer = null;
  }
}

/** Extends every slot this process holds by SLOT_LEASE_MS from now (exported for tests); a failure leaves them to lapse at their lease. */
export async function renewHeldSlots(nowMs = Date.now()): Promise<void> {
  const byStore = new Map<RateLimitStore, Array<{ key: string; id: string }>>();
  for (const { store, key, id } of leases.held.values()) {
    const slots = byStore.get(store) ?? [];
    slots.push({ key, id });
    byStore.set(store, slots);
  }
  await Promise.all(
    [...byStore].map(([store, slots]) =>
      withTimeout(store.renewSlots(slots, SLOT_LEASE_MS, nowMs), env().RATE_LIMIT_TIMEOUT_MS + 250).catch((error) =>
        log.debug("AI slot leases not renewed; they lapse at their lease unless renewed next time", {
          store: store.name,
          error: (error as Error).message,
        }),
      ),
    ),
  );
}

/**
 * Takes one of the user's AI slots, or answers 429 when all are in use. The store failing or slow lets
 * the request through (as the rate limits do; logged when the store goes down and comes back). On
 * PostgreSQL this process counts its own requests here, and the count across instances is taken with
 * the call's reservation (the slot's `charge`).
 */
export async function acquireAiSlot(userId: string, options: { store?: RateLimitStore; nowMs?: number } = {}): Promise<AiSlot> {
  const e = env();
  const cap = e.AI_MAX_CONCURRENT_PER_USER;
  if (cap === 0 || (!e.RATE_LIMIT_ENABLED && !e.isProduction)) return NO_SLOT;
  const store = options.store ?? currentStore();
  const slot = { key: userId, id: randomUUID(), cap, leaseMs: leaseMs(), nowMs: options.nowMs ?? Date.now() };
  if (await store.takesSlotsWithCharges?.()) return withTheCharge(store, slot);
  if (!(await takeSlot(store, slot))) throw tooManyAiRequests(cap);
  lease(store, userId, slot.id);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      unlease(slot.id);
      releaseStoreSlot(store, userId, slot.id);
    },
    charge: null,
  };
}

/** Takes a slot in the store: true when taken, false at the cap; the store failing or slow lets the request through (unheld). */
async function takeSlot(store: RateLimitStore, slot: SlotRequest): Promise<boolean> {
  const e = env();
  try {
    const taken = await withTimeout(store.acquireSlot(slot), e.RATE_LIMIT_TIMEOUT_MS + 250);
    dependencyState(`rate-limit store (${store.name})`, "up");
    return taken;
  } catch (error) {
    dependencyState(`rate-limit store (${store.name})`, "down", {
      store: store.name,
      error: (error as Error).message,
      effect: "requests are allowed without a limit",
    });
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

/** A slot whose count across instances is taken with the charge: a ChargeSlot the request hands to its charge. */
class SlotWithTheCharge implements ChargeSlot {
  held = false;

  constructor(
    readonly terms: SlotTerms,
    private readonly store: RateLimitStore,
  ) {}

  async holdAlone(): Promise<void> {
    if (this.held) return;
    if (!(await takeSlot(this.store, { ...this.terms, nowMs: Date.now() }))) throw this.refusal();
    this.held = true;
  }

  refusal(): Error {
    return tooManyAiRequests(this.terms.cap);
  }
}

/**
 * On PostgreSQL: this process's count before the body is read (its own requests, the same cap), the
 * count across instances with the reservation. Release gives back both (the second only if taken).
 */
function withTheCharge(store: RateLimitStore, slot: SlotRequest): AiSlot {
  if (!acquireProcessSlot(slot)) throw tooManyAiRequests(slot.cap);
  // Renewed from now on: this process's own count, and the row once a statement takes it (an UPDATE of none before).
  lease(store, slot.key, slot.id);
  const charge = new SlotWithTheCharge({ key: slot.key, id: slot.id, cap: slot.cap, leaseMs: slot.leaseMs }, store);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      unlease(slot.id);
      releaseProcessSlot(slot.key, slot.id);
      if (charge.held) releaseStoreSlot(store, slot.key, slot.id);
    },
    charge,
  };
}
