import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { checkRateLimit, checkWindowLimit } from "@/lib/ratelimit";
import { RATE_LIMIT_WINDOW_MS } from "@/lib/ratelimit/categories";
import { useFreshPostgres } from "@/tests/helpers/pg";

await useFreshPostgres();

/**
 * PostgreSQL's rate-limit windows (lib/ratelimit/database-store.ts, database-windows.ts): one atomic
 * upsert per group of checks, shared by every instance, each check counted as if it had gone alone.
 */
describe("rate-limit windows on PostgreSQL", () => {
  it("30 concurrent checks against a limit of 20: 20 allowed, every hit counted in the window's row", async () => {
    const now = Math.floor(Date.now() / RATE_LIMIT_WINDOW_MS) * RATE_LIMIT_WINDOW_MS + 1_000;
    const results = await Promise.all(Array.from({ length: 30 }, () => checkRateLimit("payments", { userId: "pg-conc" }, { nowMs: now })));
    expect(results.filter((r) => r?.allowed)).toHaveLength(20);
    const row = await (await db()).rateLimitWindow.findFirstOrThrow({ where: { key: "payments:user:pg-conc" } });
    expect(row.count).toBe(30);
    expect(row.windowStart.getTime()).toBe(now - 1_000);
    // Every check saw its own count: 20 remaining values from 19 down to 0, then 10 refusals.
    expect(
      results
        .filter((r) => r?.allowed)
        .map((r) => r?.remaining)
        .sort((a, b) => (b ?? 0) - (a ?? 0)),
    ).toEqual(Array.from({ length: 20 }, (_, i) => 19 - i));
  });

  it("the checks of one event-loop turn go out in one statement: every row they wrote has one transaction id", async () => {
    const now = Date.now();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => checkRateLimit("api", { userId: `pg-group-${i}`, ip: "10.7.0.1" }, { nowMs: now })),
    );
    expect(results.every((r) => r?.allowed)).toBe(true);
    // Each user's own window is the tighter one (99 of 100 left); the shared address counted all 12.
    expect(results.map((r) => r?.remaining)).toEqual(Array.from({ length: 12 }, () => 99));
    const rows = await (
      await db()
    ).$queryRaw<{ key: string; count: number; tx: string }[]>`
      SELECT key, count, xmin::text AS tx FROM rate_limit_windows WHERE key LIKE 'api:user:pg-group-%' OR key = 'api:ip:10.7.0.1'`;
    expect(rows).toHaveLength(13);
    expect(new Set(rows.map((r) => r.tx)).size).toBe(1);
    expect(rows.find((r) => r.key === "api:ip:10.7.0.1")?.count).toBe(12);
  });

  it("checks of different windows share a statement and each keeps its own window", async () => {
    const now = Date.now();
    const [minute, hour, again] = await Promise.all([
      checkWindowLimit("pg-mixed-minute", 5, 60_000, { nowMs: now }),
      checkWindowLimit("pg-mixed-hour", 5, 3_600_000, { nowMs: now }),
      checkWindowLimit("pg-mixed-minute", 5, 60_000, { nowMs: now }),
    ]);
    expect([minute?.remaining, again?.remaining].sort()).toEqual([3, 4]);
    expect(hour?.remaining).toBe(4);
    expect(minute?.reset).toBe(Math.ceil((Math.floor(now / 60_000) * 60_000 + 60_000) / 1000));
    expect(hour?.reset).toBe(Math.ceil((Math.floor(now / 3_600_000) * 3_600_000 + 3_600_000) / 1000));
    const rows = await (await db()).rateLimitWindow.findMany({ where: { key: { startsWith: "pg-mixed-" } }, orderBy: { key: "asc" } });
    expect(rows.map((r) => [r.key, r.count, r.windowStart.getTime()])).toEqual([
      ["pg-mixed-hour", 1, Math.floor(now / 3_600_000) * 3_600_000],
      ["pg-mixed-minute", 2, Math.floor(now / 60_000) * 60_000],
    ]);
  });
});
