/**
 * npm run bench — the foundation benchmark: GET /api/user/status (session + rate limit + database)
 * against GET /api/bench/noop (same server, same route wrapper, nothing else), on the embedded
 * database and, when TEST_DATABASE_URL is set, on a fresh PostgreSQL database. Writes the
 * "Foundation" section of docs/BENCHMARKS.md (other sections are kept) and the raw numbers to
 * bench/results/.
 *
 * Rate limits (100 requests per user and 200 per IP per hour) would stop a load test after 100
 * requests. Two ways around it, both measured:
 *   limits on   production mode; the load rotates over many signed-in users and client addresses
 *               (x-forwarded-for), so every request is counted by the real store and none is refused;
 *   limits off  RATE_LIMIT_ENABLED=false with APP_ENV=test: refused at start-up in production
 *               (lib/config/env.ts), so it cannot be used there.
 *
 * Settings: BENCH_CONCURRENCY (16), BENCH_ROUNDS (5 interleaved noop/status slices), BENCH_REQUESTS
 * per slice (600), BENCH_SECONDS per slice (10), BENCH_USERS (60), E2E_SKIP_BUILD=true to reuse
 * .next as is.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import path from "node:path";
import { Client } from "@/tests/e2e/client";
import { ensureBuild, removeDir, startServer, type RunningServer } from "@/tests/e2e/server";
import { freshPostgres } from "./lib/fresh-postgres";
import { runLoad, type LoadResult } from "./lib/load";
import { fmt, writeSection } from "./lib/report";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 600);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const USERS = Number(process.env.BENCH_USERS ?? 60);
const WARMUP = 200;

interface Summary {
  requests: number;
  counted: number;
  rps: number;
  p50: number;
  p99: number;
}

interface Scenario {
  database: "embedded (PGlite)" | "PostgreSQL";
  limits: "on" | "off";
  noop: Summary;
  status: Summary;
  ratioRps: number;
  ratioP50: number;
  ratioP99: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Medians over the rounds of one route, plus totals. */
function combine(rounds: LoadResult[]): Summary {
  return {
    requests: rounds.reduce((a, r) => a + r.requests, 0),
    counted: rounds.reduce((a, r) => a + r.withHeader, 0),
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
  };
}

async function measure(server: RunningServer, label: string): Promise<Omit<Scenario, "database" | "limits">> {
  const tokens: string[] = [];
  for (let i = 0; i < USERS; i++) {
    const c = new Client(server.baseUrl);
    const res = await c.signIn(`bench-${i}@example.com`);
    const token = c.cookies.get("next-auth.session-token");
    if (res.status !== 200 || !token) throw new Error(`sign-in failed for bench user ${i} (${res.status})`);
    tokens.push(token);
  }
  // Every request is a different (user, address) pair in turn: 100 per user and 200 per address per
  // hour allow USERS * 100 requests, more than one scenario sends.
  let sent = 0;
  const statusHeaders = (n: number) => {
    const k = sent + n;
    return {
      cookie: `next-auth.session-token=${tokens[k % tokens.length]}`,
      "x-forwarded-for": `10.77.${Math.floor(k / 200) % 250}.${(k % 200) + 1}`,
    };
  };
  const load = async (route: string, headers: ((n: number) => Record<string, string>) | undefined, max: number) => {
    const result = await runLoad({
      url: `${server.baseUrl}${route}`,
      headers,
      concurrency: CONCURRENCY,
      maxRequests: max,
      maxMs: SECONDS * 1000,
      expectStatus: 200,
      countHeader: "x-ratelimit-limit",
    });
    if (headers) sent += result.requests + result.errors;
    if (result.errors > 0) throw new Error(`${label} ${route}: ${result.errors} requests failed ${JSON.stringify(result.statuses)}`);
    return result;
  };
  await load("/api/bench/noop", undefined, WARMUP);
  await load("/api/user/status", statusHeaders, WARMUP);
  // Interleaved rounds (noop slice, then status slice) so load from elsewhere on the machine hits
  // both routes alike; the ratio of each round is taken, then the median of those.
  const noopRounds: LoadResult[] = [];
  const statusRounds: LoadResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    noopRounds.push(await load("/api/bench/noop", undefined, REQUESTS));
    statusRounds.push(await load("/api/user/status", statusHeaders, REQUESTS));
    const [n, st] = [noopRounds[round], statusRounds[round]];
    console.log(
      `  ${label} round ${round + 1}: noop ${fmt(n.rps, 0)} req/s p50 ${fmt(n.p50)} ms | status ${fmt(st.rps, 0)} req/s p50 ${fmt(st.p50)} ms p99 ${fmt(st.p99)} ms (${st.withHeader}/${st.requests} counted)`,
    );
  }
  return {
    noop: combine(noopRounds),
    status: combine(statusRounds),
    ratioRps: median(statusRounds.map((r, i) => r.rps / noopRounds[i].rps)),
    ratioP50: median(statusRounds.map((r, i) => r.p50 / noopRounds[i].p50)),
    ratioP99: median(statusRounds.map((r, i) => r.p99 / noopRounds[i].p99)),
  };
}

async function scenario(database: Scenario["database"], limits: Scenario["limits"], databaseUrl?: string): Promise<Scenario> {
  const env: Record<string, string> = {
    BENCH_ROUTES: "true",
    AUTH_DEV_LOGIN: "true",
    AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION: "true",
    LOG_LEVEL: "error",
  };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  if (limits === "off") Object.assign(env, { APP_ENV: "test", RATE_LIMIT_ENABLED: "false" });
  const label = `[${database}, limits ${limits}]`;
  console.log(`${label} starting next start ...`);
  const server = await startServer(env);
  try {
    return { database, limits, ...(await measure(server, label)) };
  } finally {
    await server.stop();
    removeDir(server.dataDir);
  }
}

function report(results: Scenario[], startedAt: Date): string {
  const rows = results.flatMap((s) => [
    `| ${s.database} | ${s.limits} | \`/api/bench/noop\` | ${s.noop.requests} | ${fmt(s.noop.rps, 0)} | ${fmt(s.noop.p50)} | ${fmt(s.noop.p99)} | | | | |`,
    `| ${s.database} | ${s.limits} | \`/api/user/status\` | ${s.status.requests} | ${fmt(s.status.rps, 0)} | ${fmt(s.status.p50)} | ${fmt(s.status.p99)} | **${fmt(s.ratioRps, 2)}** | ${fmt(s.ratioP50, 2)} | ${fmt(s.ratioP99, 2)} | ${s.limits === "on" ? `${s.status.counted} / ${s.status.requests}` : "–"} |`,
  ]);
  const cpu = cpus();
  return `
Measured by \`npm run bench\` (bench/run.ts) on ${startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC: \`next build\`, then
\`next start\` per scenario on 127.0.0.1. A load loop on the same machine keeps ${CONCURRENCY} requests in
flight over keep-alive connections. After ${WARMUP} warm-up requests per route, ${ROUNDS} interleaved rounds
each send up to ${REQUESTS} requests (at most ${SECONDS} s) to the baseline, then the same to the status
route; req/s and latencies are medians over the rounds, and each ratio is the median of the
per-round ratios. Machine: ${cpu.length} × ${cpu[0]?.model ?? "CPU"}, ${Math.round(totalmem() / 2 ** 30)} GB, Node ${process.version}. The load
generator shares the 2 CPUs with the server, and other engineers' builds and tests ran at the same
time, so absolute numbers are noisy: compare the **ratios** (same run, same server, interleaved).

- \`/api/bench/noop\` is the baseline: the same route wrapper with no session, no rate limit and no
  database (404 in production unless \`BENCH_ROUTES=true\`, which the bench server sets).
- \`/api/user/status\` verifies the session JWT, counts the request in both rate-limit windows (one
  atomic upsert on the database store), reads the user and their subscription, and answers.
- **Rate limits on**: production mode; the load rotates over ${USERS} signed-in users and many client
  addresses (\`x-forwarded-for\`), so the real limits apply and no request is refused.
- **Rate limits off**: \`RATE_LIMIT_ENABLED=false\` with \`APP_ENV=test\`, the bench-only way around
  the limits. It cannot be used in production: the server refuses to start with it there.
- "ratio req/s" is status req/s ÷ noop req/s (higher is better); "ratio p50"/"ratio p99" are status
  latency ÷ noop latency.
- "counted" is how many status answers carried \`X-RateLimit-*\` headers. A check that takes longer
  than \`RATE_LIMIT_TIMEOUT_MS\` (1 s) fails open (the request passes uncounted, a warning is
  logged), so under overload fewer than all requests would be counted.
- PostgreSQL rows run against a fresh database on the \`TEST_DATABASE_URL\` server (Debian
  PostgreSQL 15 on loopback, fsync off as scripts/test-services.sh starts it) when it is set;
  otherwise only the embedded database is measured.

| Database | Rate limits | Route | Requests | req/s | p50 ms | p99 ms | ratio req/s | ratio p50 | ratio p99 | counted |
|---|---|---|---|---|---|---|---|---|---|---|
${rows.join("\n")}
`;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  ensureBuild();
  const results: Scenario[] = [];
  results.push(await scenario("embedded (PGlite)", "on"));
  results.push(await scenario("embedded (PGlite)", "off"));
  const admin = process.env.TEST_DATABASE_URL;
  if (admin) {
    for (const limits of ["on", "off"] as const) {
      const db = await freshPostgres(admin);
      try {
        results.push(await scenario("PostgreSQL", limits, db.url));
      } finally {
        await db.drop();
      }
    }
  } else {
    console.log('TEST_DATABASE_URL is not set: PostgreSQL scenarios skipped (eval "$(scripts/test-services.sh start)")');
  }
  const root = process.cwd();
  mkdirSync(path.join(root, "bench", "results"), { recursive: true });
  writeFileSync(
    path.join(root, "bench", "results", `foundation-${startedAt.toISOString().replace(/[:.]/g, "-")}.json`),
    JSON.stringify(results, null, 2),
  );
  writeSection(path.join(root, "docs", "BENCHMARKS.md"), "Foundation", report(results, startedAt));
  console.log("wrote the Foundation section of docs/BENCHMARKS.md");
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
