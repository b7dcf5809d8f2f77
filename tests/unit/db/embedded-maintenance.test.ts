import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { maintainEmbeddedDatabase } from "@/lib/db/embedded-maintenance";
import { applyMigrations } from "@/lib/db/migrate";

/**
 * The embedded database has no autovacuum, so no planner statistics unless we gather them. These
 * tests run the real migrations on a real PGlite with a history of 20,000 charges.
 */
let pg: PGlite;
const exec = async (sql: string) => {
  await pg.exec(sql);
};

beforeAll(async () => {
  pg = await PGlite.create("memory://", { extensions: { vector } });
  await applyMigrations({ exec, query: async <T>(sql: string, params?: unknown[]) => (await pg.query<T>(sql, params as never[])).rows });
  await pg.exec(`
    INSERT INTO users (id, email, tier, updated_at) VALUES ('u1', 'u1@example.com', 'free', now()), ('u2', 'u2@example.com', 'free', now());
    INSERT INTO credit_balances (user_id, subscription_credits, monthly_allocation, reset_at, updated_at) VALUES ('u1', 1000, 1000, now(), now()), ('u2', 1000, 1000, now(), now());
    INSERT INTO credit_operations (id, user_id, idempotency_key, kind, amount, status, details, api_key_id, created_at, updated_at)
      SELECT 'op' || g, 'u1', 'op' || g, 'charge', 15, 'settled', '{}'::jsonb, CASE WHEN g % 100 = 0 THEN 'k1' END, now(), now()
      FROM generate_series(1, 20000) g;`);
}, 60_000);

afterAll(async () => {
  await pg?.close();
});

async function planOf(sql: string): Promise<string> {
  const rows = await pg.query<{ "QUERY PLAN": string }>(`EXPLAIN ${sql}`);
  return rows.rows.map((r) => r["QUERY PLAN"]).join("\n");
}

const KEY_SPEND = `SELECT api_key_id, SUM(amount) FROM credit_operations WHERE api_key_id IN ('k1') AND kind = 'charge' AND status = 'settled' GROUP BY api_key_id`;

describe("embedded database maintenance", () => {
  it("gathers statistics a minute after opening, and the planner then picks the selective index", async () => {
    // Without statistics the planner reads every settled charge to find one key's (its guess: few rows).
    expect(await planOf(KEY_SPEND)).toContain("credit_operations_status_created_at_idx");
    vi.useFakeTimers({ toFake: ["setTimeout", "setInterval", "clearTimeout", "clearInterval"] });
    let stop: () => Promise<void>;
    try {
      stop = maintainEmbeddedDatabase(exec);
      vi.advanceTimersByTime(60_000);
    } finally {
      vi.useRealTimers();
    }
    await stop();
    const analyzed = await pg.query<{ reltuples: number }>(`SELECT reltuples FROM pg_class WHERE relname = 'credit_operations'`);
    expect(Number(analyzed.rows[0].reltuples)).toBeGreaterThan(19_000);
    const plan = await planOf(KEY_SPEND);
    expect(plan).toContain("credit_operations_api_key_id_idx");
    expect(plan).not.toContain("credit_operations_status_created_at_idx");
  });

  it("does nothing before its first minute, and stops cleanly", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "setInterval", "clearTimeout", "clearInterval"] });
    const ran: string[] = [];
    try {
      const stop = maintainEmbeddedDatabase(async (sql) => {
        ran.push(sql);
      });
      vi.advanceTimersByTime(59_000);
      expect(ran).toEqual([]);
      await stop();
      vi.advanceTimersByTime(60 * 60_000);
      expect(ran).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("settle_charges finds a charge by its id and checks its owner on the row", () => {
  it("leaves another user's charge reserved (outcome not_reserved) and settles the owner's", async () => {
    await pg.exec(`INSERT INTO credit_operations (id, user_id, idempotency_key, kind, amount, status, details, created_at, updated_at)
      VALUES ('mine', 'u1', 'mine', 'charge', 15, 'reserved', '{"operation":"chat"}'::jsonb, now(), now());
      INSERT INTO credit_transactions (id, user_id, amount, balance_after, type, operation, operation_id, created_at)
      VALUES ('mine-usage', 'u1', -15, 0, 'usage', 'chat', 'mine', now())`);
    const settle = (user: string) =>
      pg.query<{ outcome: string; charged: number | null }>(
        `SELECT outcome, charged FROM settle_charges(ARRAY['mine'], ARRAY[$1::text], ARRAY[10], ARRAY[NULL::jsonb], ARRAY[NULL::bigint], false)`,
        [user],
      );
    expect((await settle("u2")).rows).toEqual([{ outcome: "not_reserved", charged: null }]);
    expect((await pg.query<{ status: string }>(`SELECT status FROM credit_operations WHERE id = 'mine'`)).rows[0].status).toBe("reserved");
    expect((await settle("u1")).rows).toEqual([{ outcome: "settled", charged: 10 }]);
    const after = await pg.query<{ status: string; amount: number }>(`SELECT status, amount FROM credit_operations WHERE id = 'mine'`);
    expect(after.rows[0]).toEqual({ status: "settled", amount: 10 });
  });
});
