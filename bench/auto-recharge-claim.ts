/**
 * npm run bench:auto-recharge (bench/auto-recharge-claim.ts): what auto-recharge costs a charge. The
 * claim is a trigger on the ledger (prisma/functions/claim_auto_recharge.sql), so a charge pays no
 * extra round trip; this measures what it pays inside the database. One process, one database
 * (embedded PGlite by default; BENCH_DB=postgres uses a fresh database on TEST_DATABASE_URL), charges
 * through lib/credits (reserveCredits, concurrency 1), interleaved rounds of three kinds:
 *   without   the trigger dropped (the build before auto-recharge);
 *   with      the trigger, the account without auto-recharge (every account that never set it);
 *   enabled   the trigger, the account with auto-recharge on and its balance above the threshold.
 * Per kind, the median over rounds of the mean µs per charge, and the median of each round's paired
 * difference to `without` (steadier than the difference of medians on a shared machine). Prints a table and writes bench/results/auto-recharge-claim-<time>.json.
 *
 * Settings: BENCH_DB (embedded | postgres), BENCH_ROUNDS (30), BENCH_CHARGES (150 per round and kind), BENCH_WARMUP (300).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freshPostgres } from "./lib/fresh-postgres";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const CHARGES = Number(process.env.BENCH_CHARGES ?? 150);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
const POSTGRES = process.env.BENCH_DB === "postgres";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const database = POSTGRES ? await freshPostgres(process.env.TEST_DATABASE_URL ?? "", "bench_recharge") : null;
  Object.assign(process.env, {
    ...(database ? { DATABASE_URL: database.url } : { PGLITE_DATA_DIR: "memory://", DATA_DIR: "/tmp/bench-recharge-data" }),
    LOG_LEVEL: "error",
    PUBLIC_PRICING_MODEL: "credit_based",
    PRICING_CONFIG: JSON.stringify({ tiers: { free: { monthlyCredits: 100_000_000 } } }),
  });
  const { closeDb, db } = await import("@/lib/db/client");
  const { reserveCredits } = await import("@/lib/credits");
  const { ensureUser } = await import("@/lib/users/ensure-user");
  try {
    const prisma = await db();
    const plain = (await ensureUser({ email: "recharge-plain@example.com" })).user.id;
    const enabled = (await ensureUser({ email: "recharge-enabled@example.com" })).user.id;
    for (const id of [plain, enabled]) await reserveCredits({ userId: id, amount: 1, operation: "chat" });
    await prisma.autoRechargeSettings.create({
      data: {
        accountId: enabled,
        enabled: true,
        threshold: 10,
        variantId: "local-bonus-basic-500",
        credits: 500,
        amount: 499,
        monthlyMaxCount: 5,
        monthlyMaxAmount: 5000,
      },
    });
    const trigger = async (on: boolean) => {
      await prisma.$executeRawUnsafe("DROP TRIGGER IF EXISTS claim_auto_recharge ON credit_transactions");
      if (on)
        await prisma.$executeRawUnsafe(
          "CREATE TRIGGER claim_auto_recharge AFTER INSERT ON credit_transactions FOR EACH ROW WHEN (NEW.amount < 0 AND NEW.type = 'usage') EXECUTE FUNCTION claim_auto_recharge()",
        );
    };
    const charges = async (userId: string, n: number) => {
      const started = performance.now();
      for (let i = 0; i < n; i++) await reserveCredits({ userId, amount: 1, operation: "chat" });
      return ((performance.now() - started) * 1000) / n;
    };
    await charges(plain, WARMUP);
    await charges(enabled, WARMUP);
    const kinds = { without: [] as number[], with: [] as number[], enabled: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (["without", "with", "enabled"] as const) : (["enabled", "with", "without"] as const);
      for (const kind of order) {
        await trigger(kind !== "without");
        kinds[kind].push(await charges(kind === "enabled" ? enabled : plain, CHARGES));
      }
    }
    await trigger(true);
    const claims = await prisma.autoRecharge.count();
    const rows = (Object.keys(kinds) as Array<keyof typeof kinds>).map((k) => ({
      kind: k,
      medianMicrosPerCharge: Number(median(kinds[k]).toFixed(1)),
      differenceMicros: Number(median(kinds[k].map((v, i) => v - kinds.without[i])).toFixed(1)),
      rounds: kinds[k].map((v) => Number(v.toFixed(1))),
    }));
    console.log(
      `auto-recharge claim on ${POSTGRES ? "PostgreSQL" : "the embedded database"}: ${ROUNDS} rounds x ${CHARGES} charges per kind`,
    );
    for (const r of rows)
      console.log(
        `  ${r.kind.padEnd(8)} ${r.medianMicrosPerCharge} µs/charge; paired with "without": ${r.differenceMicros >= 0 ? "+" : ""}${r.differenceMicros} µs`,
      );
    console.log(`  claims made (none expected: balances stay above the threshold): ${claims}`);
    const dir = path.join(process.cwd(), "bench", "results");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, `auto-recharge-claim-${Date.now()}.json`),
      JSON.stringify({ database: POSTGRES ? "postgres" : "embedded", ROUNDS, CHARGES, rows, claims }, null, 2),
    );
  } finally {
    await closeDb();
    await database?.drop();
  }
}

void main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
