/**
 * npm run bench:processes (bench/processes.ts): what WEB_CONCURRENCY buys on this machine. Two
 * production servers of the bench build on PostgreSQL (each its own fresh database on
 * TEST_DATABASE_URL), one with 1 server process and one with WEB_CONCURRENCY=2, in front of one
 * OpenAI-compatible stub process; charged POST /api/ai/chat (flat pricing) at concurrency 16 and 64,
 * one user per client, the two servers in alternating BENCH_SECONDS (5) slices, BENCH_ROUNDS (3)
 * slices each after a warm-up. Per server and concurrency: req/s (median of slices), p50 and p99
 * latency, and the server's CPU per request (every process of it, from /proc). Checks every charge is
 * exact (credits consumed = answered chats x 15) and writes bench/results/processes-<time>.json.
 *
 * On a 2-core machine the load generator, the stub and PostgreSQL share the cores with the server:
 * the second process can take only what they leave (docs/BENCHMARKS.md "Every core").
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { creditsOf, ensureBenchBuild, freshPostgres, signInUsers, startBenchServer, startHelper } from "./lib/ai-server";
import { median, percentile, runPostLoad, type PostLoadResult } from "./lib/ai-http";
import { cpuSeconds } from "./lib/process-cpu";
import { fmt } from "./lib/report";
import { removeDir, type RunningServer } from "@/tests/e2e/server";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const LEVELS = (process.env.BENCH_PROCESSES_CONCURRENCY ?? "16,64").split(",").map(Number);
const CHAT_COST = 15;

interface Slice {
  rps: number;
  latencies: number[];
  cpuMsPerRequest: number;
}

async function main(): Promise<void> {
  const admin = process.env.TEST_DATABASE_URL;
  if (!admin) throw new Error('bench:processes runs on PostgreSQL: set TEST_DATABASE_URL (eval "$(scripts/test-services.sh start)")');
  ensureBenchBuild();
  process.env.BENCH_STUB_REPLY_WORDS ??= "64";
  const stub = await startHelper<{ url: string }>("ai-stub-process.ts");
  const users = Math.max(...LEVELS);
  const env = {
    OPENAI_API_KEY: "sk-bench",
    OPENAI_BASE_URL: stub.info.url,
    AI_PRICING_MODE: "flat",
    LOG_LEVEL: "error",
    ALLOW_EMBEDDED_DATABASE: undefined,
    AI_MAX_CONCURRENT_PER_USER: "4",
    PRICING_CONFIG: JSON.stringify({ tiers: { free: { monthlyCredits: 100_000_000 } } }),
  };
  const databases = [await freshPostgres(admin, "bench_processes"), await freshPostgres(admin, "bench_processes")];
  const servers: Record<string, RunningServer> = {};
  try {
    servers["1 process"] = await startBenchServer({ ...env, DATABASE_URL: databases[0].url });
    servers["2 processes"] = await startBenchServer({ ...env, DATABASE_URL: databases[1].url, WEB_CONCURRENCY: "2" });
    const names = Object.keys(servers);
    const cookies: Record<string, string[]> = {};
    for (const name of names) cookies[name] = await signInUsers(servers[name].baseUrl, users, `processes-${name.replace(" ", "-")}`);
    const creditsBefore: Record<string, number> = {};
    for (const name of names) creditsBefore[name] = await creditsOf(servers[name].baseUrl, cookies[name]);
    const answered: Record<string, number> = Object.fromEntries(names.map((n) => [n, 0]));
    const body = JSON.stringify({ messages: [{ role: "user", content: "Say hello to the benchmark" }] });
    const load = async (name: string, concurrency: number, seconds: number): Promise<Slice & { result: PostLoadResult }> => {
      const pid = servers[name].pid;
      const cpu0 = cpuSeconds(pid, { children: true });
      const result = await runPostLoad({
        url: `${servers[name].baseUrl}/api/ai/chat`,
        concurrency,
        maxRequests: 10_000_000,
        maxMs: seconds * 1000,
        headers: (w) => ({ cookie: cookies[name][w] }),
        body,
      });
      const cpu = cpuSeconds(pid, { children: true }) - cpu0;
      answered[name] += result.statuses["200"] ?? 0;
      if (result.errors) throw new Error(`${name} at c=${concurrency}: unexpected answers ${JSON.stringify(result.statuses)}`);
      return { result, rps: result.rps, latencies: result.latencies, cpuMsPerRequest: (cpu * 1000) / Math.max(1, result.requests) };
    };
    const report: Record<string, Record<string, { rps: number; p50: number; p99: number; cpuMsPerRequest: number; slices: number[] }>> = {};
    for (const concurrency of LEVELS) {
      console.log(`\nc=${concurrency}: warm-up ...`);
      for (const name of names) await load(name, concurrency, 2);
      const slices: Record<string, Slice[]> = Object.fromEntries(names.map((n) => [n, []]));
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 ? [...names].reverse() : names;
        for (const name of order) {
          const slice = await load(name, concurrency, SECONDS);
          slices[name].push(slice);
          console.log(
            `  round ${round + 1} ${name}: ${fmt(slice.rps, 0)} req/s, p50 ${fmt(percentile(slice.latencies, 50), 2)} ms, CPU ${fmt(slice.cpuMsPerRequest, 2)} ms per request`,
          );
        }
      }
      report[`c=${concurrency}`] = Object.fromEntries(
        names.map((name) => {
          const all = slices[name].flatMap((s) => s.latencies);
          return [
            name,
            {
              rps: median(slices[name].map((s) => s.rps)),
              p50: percentile(all, 50),
              p99: percentile(all, 99),
              cpuMsPerRequest: median(slices[name].map((s) => s.cpuMsPerRequest)),
              slices: slices[name].map((s) => Number(s.rps.toFixed(0))),
            },
          ];
        }),
      );
      const one = report[`c=${concurrency}`]["1 process"];
      const two = report[`c=${concurrency}`]["2 processes"];
      console.log(
        `c=${concurrency}: 1 process ${fmt(one.rps, 0)} req/s, 2 processes ${fmt(two.rps, 0)} req/s (${fmt(two.rps / one.rps, 2)}x); CPU per request ${fmt(one.cpuMsPerRequest, 2)} / ${fmt(two.cpuMsPerRequest, 2)} ms`,
      );
    }
    for (const name of names) {
      const consumed = creditsBefore[name] - (await creditsOf(servers[name].baseUrl, cookies[name]));
      console.log(`${name}: ${answered[name]} chats x ${CHAT_COST} = ${answered[name] * CHAT_COST} credits expected, ${consumed} consumed`);
      if (consumed !== answered[name] * CHAT_COST) throw new Error(`${name}: the charges are not exact`);
    }
    const dir = path.join(process.cwd(), "bench", "results");
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `processes-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
    writeFileSync(file, `${JSON.stringify({ rounds: ROUNDS, seconds: SECONDS, report }, null, 2)}\n`);
    console.log(`wrote ${path.relative(process.cwd(), file)}`);
  } finally {
    for (const server of Object.values(servers)) {
      await server.stop();
      removeDir(server.dataDir);
    }
    await stub.stop();
    for (const d of databases) await d.drop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
