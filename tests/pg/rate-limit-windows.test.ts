import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { checkRateLimit } from "@/lib/ratelimit";
import { RATE_LIMIT_WINDOW_MS } from "@/lib/ratelimit/categories";
import { useFreshPostgres } from "@/tests/helpers/pg";

await useFreshPostgres();

/** PostgreSQL's rate-limit windows (lib/ratelimit/database-store.ts): one atomic upsert per check, shared by every instance. */
describe("rate-limit windows on PostgreSQL", () => {
  it("30 concurrent checks against a limit of 20: 20 allowed, every hit counted in the window's row", async () => {
    const now = Math.floor(Date.now() / RATE_LIMIT_WINDOW_MS) * RATE_LIMIT_WINDOW_MS + 1_000;
    const results = await Promise.all(Array.from({ length: 30 }, () => checkRateLimit("payments", { userId: "pg-conc" }, { nowMs: now })));
    expect(results.filter((r) => r?.allowed)).toHaveLength(20);
    const row = await (await db()).rateLimitWindow.findFirstOrThrow({ where: { key: "payments:user:pg-conc" } });
    expect(row.count).toBe(30);
    expect(row.windowStart.getTime()).toBe(now - 1_000);
  });
});
