/**
 * npm run bench:pglite (bench/pglite-statements.ts) — what a hot statement costs the embedded database
 * through `PGlite.query` (parse, describe and plan at every call) and through the named prepared
 * statements of lib/db/pglite-prepared.ts (parsed once, one call into the main loop per use), in one
 * process: the real migrations on a fresh PGlite (in memory, then on a data directory), one user with
 * credits, then BENCH_ROUNDS (8) interleaved rounds of BENCH_CALLS (300) calls of each kind; CPU of
 * the process (user + system) per call, median of the rounds after 2 warm-up rounds. The statements
 * are the charge's reservation (`reserve_credits`, a new charge each call), a whole charge (that
 * reservation, then its settlement at the amount reserved: `settle_exact_charges`, what a charged
 * call costs the database when its price is known) and the status read (`user_status`). Prints a
 * table; nothing is written to the docs.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite, parse, protocol } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { applyMigrations } from "@/lib/db/migrate";
import { pglitePrepared } from "@/lib/db/pglite-prepared";
import { RESERVE_ONE } from "@/lib/credits/reserve-statement";
import { SETTLE_EXACT } from "@/lib/credits/settle-reservation";
import { STATUS_READ } from "@/lib/account/user-status";
import { removeDir } from "@/tests/e2e/server";
import { fmt } from "./lib/report";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const WARMUP_ROUNDS = 2;

async function measure(dataDir: string): Promise<Record<string, number>> {
  const pg = await PGlite.create(dataDir, { extensions: { vector } });
  try {
    await applyMigrations({
      exec: async (sql: string) => void (await pg.exec(sql)),
      query: async <T>(sql: string, params?: unknown[]) => (await pg.query<T>(sql, params as never[])).rows,
    });
    await pg.exec(`INSERT INTO users (id, email, tier, updated_at) VALUES ('bench', 'bench@example.com', 'free', now());
      INSERT INTO credit_balances (user_id, subscription_credits, monthly_allocation, reset_at, updated_at)
        VALUES ('bench', 1000000000, 1000000000, now() + interval '20 days', now());`);
    const prepared = pglitePrepared(pg, { parse, protocol });
    const now = new Date();
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
    const reserveArgs = () => ["bench", 15, month, randomUUID(), "chat", null, null, false, "bench"];
    const statusArgs = () => ["bench", new Date().toISOString(), ["active", "trialing", "past_due"]];
    const kinds: Record<string, () => Promise<unknown>> = {
      "reserve_credits, PGlite.query": () => pg.query(RESERVE_ONE, reserveArgs()),
      "reserve_credits, prepared": () => prepared("bench_reserve", RESERVE_ONE, reserveArgs()),
      "a charge (reservation + settlement), prepared": async () => {
        const args = reserveArgs();
        await prepared("bench_reserve", RESERVE_ONE, args);
        const settled = await prepared("bench_settle", SETTLE_EXACT, [
          [args[3]],
          ["bench"],
          [JSON.stringify({ model: "gpt-4o-mini" })],
          [1200],
        ]);
        if (settled.length !== 1) throw new Error("the charge was not settled");
      },
      "user_status, PGlite.query": () => pg.query(STATUS_READ, statusArgs()),
      "user_status, prepared": () => prepared("bench_status", STATUS_READ, statusArgs()),
    };
    const perCall: Record<string, number[]> = {};
    for (let round = 0; round < ROUNDS + WARMUP_ROUNDS; round++) {
      for (const [kind, call] of Object.entries(kinds)) {
        const before = process.cpuUsage();
        for (let i = 0; i < CALLS; i++) await call();
        const used = process.cpuUsage(before);
        if (round >= WARMUP_ROUNDS) (perCall[kind] ??= []).push((used.user + used.system) / 1000 / CALLS);
      }
    }
    return Object.fromEntries(
      Object.entries(perCall).map(([kind, values]) => [kind, values.sort((a, b) => a - b)[Math.floor(values.length / 2)]]),
    );
  } finally {
    await pg.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), "bench-pglite-"));
  try {
    const memory = await measure("memory://");
    const disk = await measure(path.join(dir, "db"));
    console.log(`\nCPU ms per call, median of ${ROUNDS} rounds of ${CALLS} calls:\n`);
    console.log("| Statement | in memory | on a data directory |\n|---|---|---|");
    for (const kind of Object.keys(memory)) console.log(`| ${kind} | ${fmt(memory[kind], 3)} | ${fmt(disk[kind], 3)} |`);
  } finally {
    removeDir(dir);
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
