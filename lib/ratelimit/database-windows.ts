import { dbRunner } from "@/lib/db/client";
import { groupCommit } from "@/lib/db/group-commit";
import type { WindowCount, WindowHit } from "./store";

/**
 * Fixed-window counters in PostgreSQL (rate_limit_windows), grouped as the AI slots are
 * (database-slots.ts): the checks asked for within one event-loop turn, or while a statement is
 * being written, go out as ONE upsert on the raw driver (prepared once per connection), instead of a
 * Prisma round trip per request. Each (key, window) pair is written once per statement with the
 * number of its hits, in key order (two instances' statements take their row locks in one order),
 * and each check gets the count it would have got alone: the hits of one key in a group are numbered
 * in the group's order, ending at the row's new count.
 */
const UPSERT = `INSERT INTO rate_limit_windows (key, window_start, count)
  SELECT h.key, to_timestamp(h.start_ms / 1000.0), count(*)::int
  FROM unnest($1::text[], $2::bigint[]) AS h(key, start_ms)
  GROUP BY h.key, h.start_ms
  ORDER BY h.key, h.start_ms
  ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_windows.count + EXCLUDED.count
  RETURNING key, (extract(epoch FROM window_start) * 1000)::bigint AS start_ms, count`;
/** Most checks in one statement. */
const MAX_BATCH = 64;

interface WindowCheck {
  hits: WindowHit[];
  startMs: number;
  windowMs: number;
}

async function upsertWindows(batch: WindowCheck[]): Promise<WindowCount[][]> {
  const keys: string[] = [];
  const starts: number[] = [];
  for (const check of batch)
    for (const hit of check.hits) {
      keys.push(hit.key);
      starts.push(check.startMs);
    }
  const rows = await (
    await dbRunner()
  ).queryPrepared<{ key: string; start_ms: string | number; count: number }>("rate_limit_windows_hit_v1", UPSERT, [keys, starts]);
  const pair = (key: string, startMs: number) => `${startMs} ${key}`;
  const after = new Map(rows.map((r) => [pair(r.key, Number(r.start_ms)), Number(r.count)]));
  const inGroup = new Map<string, number>();
  for (let i = 0; i < keys.length; i++) inGroup.set(pair(keys[i], starts[i]), (inGroup.get(pair(keys[i], starts[i])) ?? 0) + 1);
  const counted = new Map<string, number>();
  return batch.map((check) =>
    check.hits.map((hit) => {
      const p = pair(hit.key, check.startMs);
      const before = counted.get(p) ?? 0;
      counted.set(p, before + 1);
      // The row's count after the group, less the group's hits of this pair that come after this one.
      const count = (after.get(p) ?? inGroup.get(p) ?? 1) - (inGroup.get(p) ?? 1) + before + 1;
      return { ...hit, count, resetMs: check.startMs + check.windowMs };
    }),
  );
}

const hitGrouped = groupCommit<WindowCheck, WindowCount[]>({
  maxBatch: MAX_BATCH,
  sameBatch: () => true,
  writeOne: async (check) => (await upsertWindows([check]))[0],
  writeMany: upsertWindows,
});

/** One hit on each of `hits` in the current fixed window of `windowMs`, counted atomically per key across instances. */
export function hitDatabaseWindows(hits: WindowHit[], windowMs: number, nowMs: number): Promise<WindowCount[]> {
  if (hits.length === 0) return Promise.resolve([]);
  return hitGrouped({ hits, startMs: Math.floor(nowMs / windowMs) * windowMs, windowMs });
}
