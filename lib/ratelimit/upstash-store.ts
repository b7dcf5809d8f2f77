import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import type { RateLimitStore, SlotRequest, WindowCount, WindowHit } from "./store";

/**
 * Upstash Redis through @upstash/ratelimit (fixed window). A Redis error or a check that takes longer
 * than `timeoutMs` throws; the caller (lib/ratelimit/index.ts) lets the request pass and logs a warning.
 */
export function createUpstashStore(options: { url: string; token: string; timeoutMs: number }): RateLimitStore {
  const redis = new Redis({ url: options.url, token: options.token, retry: { retries: 0 } });
  const limiters = new Map<string, Ratelimit>();
  const limiterFor = (limit: number, windowMs: number) => {
    const id = `${limit}:${windowMs}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      limiter = new Ratelimit({
        redis,
        limiter: Ratelimit.fixedWindow(limit, `${windowMs} ms`),
        prefix: "ratelimit",
        timeout: options.timeoutMs,
        analytics: false,
        ephemeralCache: false,
      });
      limiters.set(id, limiter);
    }
    return limiter;
  };
  return {
    name: "upstash",
    // Slots: a sorted set per key scored by each slot's expiry; one script drops the lapsed ones,
    // counts the rest and adds the slot under the cap (atomic in Redis).
    async acquireSlot(slot: SlotRequest): Promise<boolean> {
      const taken = await redis.eval(
        ACQUIRE_SLOT,
        [`aislots:${slot.key}`],
        [String(slot.nowMs), String(slot.cap), String(slot.nowMs + slot.leaseMs), slot.id, String(slot.leaseMs)],
      );
      return Number(taken) === 1;
    },
    async releaseSlot(key: string, id: string): Promise<void> {
      await redis.zrem(`aislots:${key}`, id);
    },
    // One pipeline (one request): each slot's expiry moved on if it is still held (ZADD XX adds none
    // given back meanwhile), and its set's expiry with it.
    async renewSlots(slots: Array<{ key: string; id: string }>, leaseMs: number, nowMs: number): Promise<void> {
      if (slots.length === 0) return;
      const pipeline = redis.pipeline();
      for (const key of new Set(slots.map((s) => s.key))) pipeline.pexpire(`aislots:${key}`, leaseMs);
      for (const s of slots) pipeline.zadd(`aislots:${s.key}`, { xx: true }, { score: nowMs + leaseMs, member: s.id });
      await pipeline.exec();
    },
    async hit(hits: WindowHit[], windowMs: number, nowMs: number): Promise<WindowCount[]> {
      return Promise.all(
        hits.map(async (h) => {
          const result = await limiterFor(h.limit, windowMs).limit(h.key);
          // On timeout the library answers success with reason "timeout": that is a store failure (the
          // caller lets the request pass and logs it), not a count.
          if (result.reason === "timeout") throw new Error(`upstash did not answer within ${options.timeoutMs} ms`);
          const count = h.limit - result.remaining + (result.success ? 0 : 1);
          const resetMs = result.reset || Math.floor(nowMs / windowMs) * windowMs + windowMs;
          return { ...h, count, resetMs };
        }),
      );
    },
  };
}

const ACQUIRE_SLOT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;
