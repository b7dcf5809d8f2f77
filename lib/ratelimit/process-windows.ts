import { processState } from "@/lib/process-state";
import type { WindowCount, WindowHit } from "./store";

/**
 * Fixed rate-limit windows in this process's memory: the store of the embedded database, which only
 * this process opens, so its count is the whole count. Before, each check was an upsert in PGlite, a
 * committed write with its file-system calls on the request's thread: most of a plain GET's CPU there
 * (docs/BENCHMARKS.md "Gateway speed round two"). The price: a restart starts the windows afresh.
 * Ended windows are swept every SWEEP_EVERY hits; past MAX_KEYS (addresses of a flood) the oldest
 * counters are dropped, down to 90% of it so that a flood pays a sweep per 20,000 new keys, not per
 * request. Dropping a counter can only let a request through, never refuse one.
 */
const SWEEP_EVERY = 1_000;
const MAX_KEYS = 200_000;

const state = processState("rateLimitProcessWindows", () => ({
  windows: new Map<string, { start: number; count: number; endMs: number }>(),
  hits: 0,
}));

export function hitProcessWindows(hits: WindowHit[], windowMs: number, nowMs: number): WindowCount[] {
  const start = Math.floor(nowMs / windowMs) * windowMs;
  if (++state.hits % SWEEP_EVERY === 0 || state.windows.size > MAX_KEYS) sweep(nowMs);
  return hits.map((h) => {
    const id = `${h.key}@${windowMs}`;
    const current = state.windows.get(id);
    const window = current && current.start === start ? current : { start, count: 0, endMs: start + windowMs };
    window.count += 1;
    if (window !== current) {
      state.windows.delete(id); // re-inserted last: the map's order stays oldest first
      state.windows.set(id, window);
    }
    return { ...h, count: window.count, resetMs: window.endMs };
  });
}

function sweep(nowMs: number): void {
  for (const [id, w] of state.windows) if (w.endMs <= nowMs) state.windows.delete(id);
  for (const id of state.windows.keys()) {
    if (state.windows.size <= MAX_KEYS * 0.9) break;
    state.windows.delete(id);
  }
}
