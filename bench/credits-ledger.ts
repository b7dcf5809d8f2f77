/**
 * Credit ledger benchmark: hot-user charges per second through lib/credits (reserveCredits: one CTE
 * statement = conditional UPDATE + operation row + ledger row) against the floor of one raw
 * `UPDATE credit_balances ... WHERE subscription_credits >= n RETURNING` per charge, same database,
 * same pool size and concurrency, interleaved rounds. Appends/replaces the "Credit ledger" section of
 * docs/BENCHMARKS.md.
 *
 *   TEST_DATABASE_URL=postgres://... npx tsx bench/credits-ledger.ts
 *   env: BENCH_CONCURRENCY worker counts (default "4,16"), BENCH_SECONDS per slice (default 1.5), BENCH_ROUNDS (default 10),
 *        BENCH_NO_WRITE=1 to skip docs/BENCHMARKS.md
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freshPostgres } from "./lib/fresh-postgres";

const admin = process.env.TEST_DATABASE_URL;
if (!admin) {
  console.error('TEST_DATABASE_URL is not set (eval "$(scripts/test-services.sh env)")');
  process.exit(1);
}
const LEVELS = (process.env.BENCH_CONCURRENCY ?? "4,16").split(",").map(Number);
const CONCURRENCY = Math.max(...LEVELS);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 1.5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);

/** Runs `op` from CONCURRENCY workers for SECONDS; returns successful operations per second. */
async function measure(
  op: () => Promise<unknown>,
  workers: number,
): Promise<{ perSecond: number; count: number; p50: number; p99: number }> {
  const deadline = performance.now() + SECONDS * 1000;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        await op();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
  return { perSecond: latencies.length / elapsed, count: latencies.length, p50: q(0.5), p99: q(0.99) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const database = await freshPostgres(admin!, "bench_ledger", { migrate: false });
  process.env.DATABASE_URL = database.url;
  process.env.DATABASE_POOL_MAX = String(CONCURRENCY);
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? "warn";
  process.env.PUBLIC_PRICING_MODEL = "credit_based";
  const { applyMigrations } = await import("@/lib/db/migrate");
  const { closeDb, db } = await import("@/lib/db/client");
  const { reserveCredits } = await import("@/lib/credits");
  const { ensureUser } = await import("@/lib/users/ensure-user");

  const raw = new pg.Pool({ connectionString: database.url, max: CONCURRENCY });
  // Dropping the database at the end terminates whatever is still connected: not an error here.
  raw.on("error", () => {});
  try {
    await applyMigrations({
      exec: async (sql) => {
        await raw.query(sql);
      },
      query: async (sql, params) => (await raw.query(sql, params as unknown[])).rows,
    });
    const prisma = await db();
    const BIG = 1_000_000_000;
    const setup = async (email: string) => {
      const { user } = await ensureUser({ email });
      await prisma.$transaction(async (tx) => {
        await tx.creditBalance.update({ where: { userId: user.id }, data: { subscriptionCredits: { increment: BIG } } });
        const b = await tx.creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
        await tx.creditTransaction.create({
          data: { userId: user.id, amount: BIG, balanceAfter: b.subscriptionCredits, type: "adjustment", operation: "bench_setup" },
        });
      });
      return user.id;
    };
    const ledgerUser = await setup("bench-ledger@example.com");
    const floorUser = await setup("bench-floor@example.com");

    const floorCharge = () =>
      raw.query(
        "UPDATE credit_balances SET subscription_credits = subscription_credits - $2 WHERE user_id = $1 AND subscription_credits >= $2 RETURNING subscription_credits",
        [floorUser, 1],
      );
    const ledgerCharge = () => reserveCredits({ userId: ledgerUser, amount: 1, operation: "bench", metadata: { model: "bench" } });

    // Warm up both paths (connections, prepared plans, Prisma's query engine).
    for (let i = 0; i < 200; i++) {
      await floorCharge();
      await ledgerCharge();
    }

    // Interleaved short slices (floor, ledger, ledger, floor, ...) so load from other processes on a
    // shared machine hits both alike; the ratio is taken per round and the median reported.
    const results: {
      workers: number;
      floor: number;
      ledger: number;
      ratio: number;
      ratios: number[];
      f: { p50: number; p99: number };
      l: { p50: number; p99: number };
    }[] = [];
    for (const workers of LEVELS) {
      const floor: number[] = [];
      const ledger: number[] = [];
      const ratios: number[] = [];
      let lastFloor = { p50: 0, p99: 0 };
      let lastLedger = { p50: 0, p99: 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const floorFirst = round % 2 === 0;
        const first = await measure(floorFirst ? floorCharge : ledgerCharge, workers);
        const second = await measure(floorFirst ? ledgerCharge : floorCharge, workers);
        const f = floorFirst ? first : second;
        const l = floorFirst ? second : first;
        ratios.push(l.perSecond / f.perSecond);
        floor.push(f.perSecond);
        ledger.push(l.perSecond);
        lastFloor = f;
        lastLedger = l;
        console.log(
          `${workers} workers, round ${round + 1}: floor ${f.perSecond.toFixed(0)}/s, ledger ${l.perSecond.toFixed(0)}/s, ratio ${(l.perSecond / f.perSecond).toFixed(2)}`,
        );
      }
      results.push({ workers, floor: median(floor), ledger: median(ledger), ratio: median(ratios), ratios, f: lastFloor, l: lastLedger });
    }

    // The ledger must still balance after the run.
    const sums = await raw.query<{ sub: number; ledger: string }>(
      "SELECT b.subscription_credits AS sub, (SELECT SUM(amount) FROM credit_transactions t WHERE t.user_id = b.user_id AND t.bonus_purchase_id IS NULL) AS ledger FROM credit_balances b WHERE b.user_id = $1",
      [ledgerUser],
    );
    const balanced = Number(sums.rows[0].sub) === Number(sums.rows[0].ledger);
    const serverVersion = (await raw.query<{ server_version: string }>("SHOW server_version")).rows[0].server_version;

    const date = new Date().toISOString().slice(0, 16).replace("T", " ");
    const section = [
      "## Credit ledger",
      "",
      `\`npx tsx bench/credits-ledger.ts\` (${date} UTC; PostgreSQL ${serverVersion} on 127.0.0.1 with fsync off, as scripts/test-services.sh starts it; ${os.cpus().length} cores shared with other work; Node ${process.version}).`,
      `One hot user; pool of ${CONCURRENCY}; per worker count ${ROUNDS} rounds of interleaved ${SECONDS} s slices; medians (ratio = median of the per-round ratios).`,
      "Floor: one raw `UPDATE credit_balances SET subscription_credits = subscription_credits - n WHERE user_id = $1 AND subscription_credits >= n RETURNING` per charge (pg driver).",
      "Ledger: `reserveCredits` (lib/credits): one prepared CTE = the same conditional UPDATE (joined with the user's tier/auto-use and bonus sum) + the usage ledger row.",
      "",
      "| Workers | Floor charges/s | Ledger charges/s | Ratio | Floor p50/p99 ms | Ledger p50/p99 ms | Per-round ratios |",
      "|---|---|---|---|---|---|---|",
      ...results.map(
        (r) =>
          `| ${r.workers} | ${r.floor.toFixed(0)} | ${r.ledger.toFixed(0)} | **${r.ratio.toFixed(2)}** | ${r.f.p50.toFixed(2)} / ${r.f.p99.toFixed(2)} | ${r.l.p50.toFixed(2)} / ${r.l.p99.toFixed(2)} | ${r.ratios.map((x) => x.toFixed(2)).join(", ")} |`,
      ),
      "",
      `Target >= 0.5 of the floor. Ledger balanced after the run: ${balanced ? "yes" : "NO"}.`,
      "",
      "What limits it: every charge of one user serializes on that user's credit_balances row lock, and the",
      "ledger statement holds it while it also inserts the credit_transactions row (primary key + three",
      "secondary indexes + the users foreign-key check, which row-locks the users row and writes WAL for it);",
      "the floor holds it for the UPDATE alone. Both are one round trip on the raw driver as a prepared",
      "statement. Steps taken: the hot path bypasses Prisma's query layer (through it, even the bare floor",
      "UPDATE ran at ~0.4 of the raw driver), uses a named prepared statement (~+30% over re-planning each",
      "call), writes no credit_operations row when the caller gives no idempotency key (the ledger row is the",
      "record; ~+50%), and reads tier/auto-use/bonus sum in the UPDATE's join. node and PostgreSQL share the",
      "same 2 busy cores, so client-side work per charge (flags(), uuid, JSON) counts too and the ratio moves",
      "with the worker count and the machine's load (ratios of single rounds range ~0.35-0.65). A charge",
      "with an idempotency key adds a credit_operations row to the same statement; a charge the subscription",
      "credits cannot cover alone (bonus draw or 402) takes a short transaction under the same row lock",
      "(several round trips). Neither is measured here.",
      "",
    ].join("\n");
    console.log(`\n${section}`);
    if (!process.env.BENCH_NO_WRITE) writeSection(section);
    if (!balanced) process.exitCode = 1;
  } finally {
    await raw.end();
    await closeDb();
    await database.drop();
  }
}

function writeSection(section: string) {
  const file = path.join(process.cwd(), "docs", "BENCHMARKS.md");
  let text = existsSync(file) ? readFileSync(file, "utf8") : "# Benchmarks\n\n";
  const start = text.indexOf("## Credit ledger");
  if (start >= 0) {
    const next = text.indexOf("\n## ", start + 1);
    text = text.slice(0, start) + section + (next >= 0 ? text.slice(next + 1) : "");
  } else {
    text = `${text.replace(/\n*$/, "\n\n")}${section}`;
  }
  writeFileSync(file, text);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
