export interface WindowHit {
  /** Unique counter key, e.g. "api:user:<id>". */
  key: string;
  limit: number;
}

export interface WindowCount {
  key: string;
  limit: number;
  count: number;
  /** Window end, epoch milliseconds. */
  resetMs: number;
}

/** A slot to take under a cap: `id` is the slot's own id, `leaseMs` how long it lasts if never released. */
export interface SlotRequest {
  key: string;
  id: string;
  cap: number;
  leaseMs: number;
  nowMs: number;
}

/**
 * Counts one hit on each key in the current fixed window, atomically per key; and holds slots under a
 * cap (requests in progress), atomically per key.
 */
export interface RateLimitStore {
  readonly name: string;
  hit(hits: WindowHit[], windowMs: number, nowMs: number): Promise<WindowCount[]>;
  /** Takes a slot if fewer than `cap` unexpired ones are held under `key`; false when full. */
  acquireSlot(slot: SlotRequest): Promise<boolean>;
  releaseSlot(key: string, id: string): Promise<void>;
  /** Extends the leases of slots this process holds to `leaseMs` from now, all in one statement (their calls still run). */
  renewSlots(slots: Array<{ key: string; id: string }>, leaseMs: number, nowMs: number): Promise<void>;
  /**
   * Whether an AI request's slot is taken across instances by its credit reservation's own statement
   * (the database store on PostgreSQL: lib/ratelimit/ai-slot), this process counting it first.
   */
  takesSlotsWithCharges?(): Promise<boolean>;
}
