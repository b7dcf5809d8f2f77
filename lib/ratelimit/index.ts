import { env } from "@/lib/config/env";
import { dependencyState, log } from "@/lib/log";
import { metrics } from "@/lib/metrics";
import { RATE_LIMIT_CATEGORIES, RATE_LIMIT_HEADER_NAMES, RATE_LIMIT_WINDOW_MS, type RateLimitCategory } from "./categories";
import { databaseStore } from "./database-store";
import type { RateLimitStore } from "./store";
import { createUpstashStore } from "./upstash-store";
import { processState } from "@/lib/process-state";

export { RATE_LIMIT_CATEGORIES, type RateLimitCategory } from "./categories";

export interface RateLimitOutcome {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the tighter window resets. */
  reset: number;
}

const state = processState("rateLimitStore", () => ({ current: undefined as { key: string; store: RateLimitStore } | undefined }));

export function currentStore(): RateLimitStore {
  const e = env();
  const key = `${e.UPSTASH_REDIS_REST_URL ?? ""}|${e.UPSTASH_REDIS_REST_TOKEN ?? ""}|${e.RATE_LIMIT_TIMEOUT_MS}`;
  if (state.current?.key !== key) {
    const store =
      e.UPSTASH_REDIS_REST_URL && e.UPSTASH_REDIS_REST_TOKEN
        ? createUpstashStore({ url: e.UPSTASH_REDIS_REST_URL, token: e.UPSTASH_REDIS_REST_TOKEN, timeoutMs: e.RATE_LIMIT_TIMEOUT_MS })
        : databaseStore;
    state.current = { key, store };
  }
  return state.current.store;
}

export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`rate limit store timed out after ${ms} ms`)), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

/**
 * Counts this request against its category, per user and per IP (SPEC §8). Returns null when rate
 * limiting is off or the store failed (the request passes; a warning is logged), else the outcome of
 * the tighter of the two windows.
 */
export async function checkRateLimit(
  category: RateLimitCategory,
  subject: { userId?: string | null; ip?: string | null },
  options: { store?: RateLimitStore; nowMs?: number } = {},
): Promise<RateLimitOutcome | null> {
  const limits = RATE_LIMIT_CATEGORIES[category];
  const hits = [];
  if (limits.perUser !== null && subject.userId) hits.push({ key: `${category}:user:${subject.userId}`, limit: limits.perUser });
  if (limits.perIp !== null && subject.ip) hits.push({ key: `${category}:ip:${subject.ip}`, limit: limits.perIp });
  return countHits(hits, RATE_LIMIT_WINDOW_MS, category, options);
}

/**
 * One counter outside the categories, in its own fixed window: an API key's requests per minute,
 * failed API-key attempts per client address. Same store, switch and fail-open rule as checkRateLimit.
 */
export async function checkWindowLimit(
  key: string,
  limit: number,
  windowMs: number,
  options: { store?: RateLimitStore; nowMs?: number } = {},
): Promise<RateLimitOutcome | null> {
  return countHits([{ key, limit }], windowMs, key.slice(0, key.indexOf(":")), options);
}

async function countHits(
  hits: { key: string; limit: number }[],
  windowMs: number,
  label: string,
  options: { store?: RateLimitStore; nowMs?: number },
): Promise<RateLimitOutcome | null> {
  const e = env();
  // Switching limits off is refused in production at start-up (lib/config/env.ts); checked here too.
  if (!e.RATE_LIMIT_ENABLED && !e.isProduction) return null;
  if (hits.length === 0) return null;
  const store = options.store ?? currentStore();
  const nowMs = options.nowMs ?? Date.now();
  try {
    const counts = await withTimeout(store.hit(hits, windowMs, nowMs), e.RATE_LIMIT_TIMEOUT_MS + 250);
    dependencyState(`rate-limit store (${store.name})`, "up");
    let tightest: RateLimitOutcome | null = null;
    for (const c of counts) {
      const outcome: RateLimitOutcome = {
        allowed: c.count <= c.limit,
        limit: c.limit,
        remaining: Math.max(0, c.limit - c.count),
        reset: Math.ceil(c.resetMs / 1000),
      };
      if (
        !tightest ||
        (!outcome.allowed && tightest.allowed) ||
        (outcome.allowed === tightest.allowed && outcome.remaining < tightest.remaining)
      ) {
        tightest = outcome;
      }
    }
    return tightest;
  } catch (error) {
    // Logged when the store stops answering (and when it is back), not on every request meanwhile.
    dependencyState(`rate-limit store (${store.name})`, "down", {
      store: store.name,
      error: (error as Error).message,
      effect: "requests are allowed without a limit",
    });
    log.debug("rate limit store unavailable; request allowed", { store: store.name, category: label });
    metrics().rateLimitFailOpen.inc({ store: store.name });
    return null;
  }
}

export function rateLimitHeaders(outcome: RateLimitOutcome): Record<string, string> {
  return {
    [RATE_LIMIT_HEADER_NAMES.limit]: String(outcome.limit),
    [RATE_LIMIT_HEADER_NAMES.remaining]: String(outcome.remaining),
    [RATE_LIMIT_HEADER_NAMES.reset]: String(outcome.reset),
  };
}
