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

/** Counts one hit on each key in the current fixed window, atomically per key. */
export interface RateLimitStore {
  readonly name: string;
  hit(hits: WindowHit[], windowMs: number, nowMs: number): Promise<WindowCount[]>;
}
