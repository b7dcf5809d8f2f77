/**
 * npm run bench:ai:ab (bench/ab-chat.ts): this build's charged chat against another build's, side by
 * side in one run. Two production servers on the embedded database, flat pricing, in front of one
 * OpenAI-compatible stub (its own process, a 64-word answer whatever the prompt): this checkout's
 * bench build (.next-bench) and the standalone server of BENCH_AB_BASELINE (a directory holding a
 * checkout of the other commit, built with `npm run bench:ai:overhead` or `npm run build` there).
 * Concurrency 1, the two servers interleaved request by request, after warm-ups; per round the p50 of
 * each and their difference, for a 1 KB and a 100 KB prompt; interleaved with them, the stub asked
 * directly for a JSON answer (as the baseline asks it) and for a streamed one (as this build does). Writes bench/results/ab-chat-<time>.json
 * (the BENCHMARKS entry is written by hand: the baseline is whatever commit was chosen).
 *
 * On the 2-core measuring machine the bench favours the baseline role by about 0.2 ms (a build against
 * itself reads +0.17 ms): for a claim of "no slower", run it both ways (the second from the other
 * checkout, BENCH_AB_BASELINE pointing here) and take half the difference (docs/BENCHMARKS.md
 * "Money rules in files: a charge's price").
 *
 * Settings: BENCH_AB_BASELINE (required), BENCH_AB_BASELINE_DIST (.next-bench), BENCH_ROUNDS (5),
 * BENCH_LATENCY_N (200 per server per round), BENCH_WARMUP (300 per server), BENCH_SKIP_BUILD,
 * BENCH_AB_DATABASE=postgres (each server on its own fresh database on TEST_DATABASE_URL, migrated by
 * this checkout: a baseline older by a migration or two runs on it unchanged), BENCH_AB_SIZES (1k,100k),
 * BENCH_AB_CONCURRENCY (0; e.g. 16: then also the charged chat's req/s at that concurrency, one user
 * per worker, the two servers in alternating BENCH_SECONDS (5) slices, BENCH_ROUNDS slices each).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ensureBenchBuild, freshPostgres, signInUsers, startBenchServer, startHelper, type HelperProcess } from "./lib/ai-server";
import { keepAliveAgent, median, runPostLoad, timedPost } from "./lib/ai-http";
import { fmt } from "./lib/report";
import { removeDir, startServer, type RunningServer } from "@/tests/e2e/server";

const BASELINE = process.env.BENCH_AB_BASELINE;
const BASELINE_DIST = process.env.BENCH_AB_BASELINE_DIST ?? ".next-bench";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const N = Number(process.env.BENCH_LATENCY_N ?? 200);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
const DATABASE = process.env.BENCH_AB_DATABASE === "postgres" ? "postgres" : "embedded";
const SIZES = (process.env.BENCH_AB_SIZES ?? "1k,100k").split(",").map((s) => s.trim());
const CONCURRENCY = Number(process.env.BENCH_AB_CONCURRENCY ?? 0);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

function prompt(bytes: number): string {
  const sentence = "The quick brown fox jumps over the lazy dog while the benchmark counts every token it sees. ";
  return sentence.repeat(Math.ceil(bytes / sentence.length)).slice(0, bytes);
}

async function main(): Promise<void> {
  if (!BASELINE) throw new Error("set BENCH_AB_BASELINE to a checkout of the commit to compare with (built there)");
  const baselineServerDir = path.join(BASELINE, BASELINE_DIST, "standalone");
  if (!existsSync(path.join(baselineServerDir, "server.js"))) throw new Error(`no standalone build in ${baselineServerDir}`);
  ensureBenchBuild();
  process.env.BENCH_STUB_REPLY_WORDS ??= "64";
  const stub: HelperProcess<{ url: string }> = await startHelper("ai-stub-process.ts");
  const env = {
    OPENAI_API_KEY: "sk-bench",
    OPENAI_BASE_URL: stub.info.url,
    AI_PRICING_MODE: "flat",
    LOG_LEVEL: "error",
    // Every call is charged; the free tier holds enough credits for the whole run.
    PRICING_CONFIG: JSON.stringify({ tiers: { free: { monthlyCredits: 100_000_000 } } }),
  };
  const admin = process.env.TEST_DATABASE_URL;
  if (DATABASE === "postgres" && !admin)
    throw new Error('BENCH_AB_DATABASE=postgres needs TEST_DATABASE_URL (eval "$(scripts/test-services.sh env)")');
  const databases =
    DATABASE === "postgres" ? [await freshPostgres(admin as string, "bench_ab"), await freshPostgres(admin as string, "bench_ab")] : [];
  const servers: Record<"baseline" | "current", RunningServer> = {
    current: await startBenchServer({ ...env, DATABASE_URL: databases[0]?.url }),
    baseline: await startServer(
      { ...env, DATABASE_URL: databases[1]?.url, NEXT_DIST_DIR: BASELINE_DIST },
      { serverDir: baselineServerDir, readyTimeoutMs: 180_000 },
    ),
  };
  try {
    const cookies = {
      current: (await signInUsers(servers.current.baseUrl, 1, "ab-current"))[0],
      baseline: (await signInUsers(servers.baseline.baseUrl, 1, "ab-baseline"))[0],
    };
    const agent = keepAliveAgent(1);
    const sizes = { "1k": prompt(1024), "100k": prompt(100 * 1024) } as const;
    const body = (size: keyof typeof sizes) =>
      JSON.stringify({ messages: (sizes[size].match(/[\s\S]{1,51200}/g) ?? []).map((content) => ({ role: "user", content })) });
    const one = async (who: "baseline" | "current", size: keyof typeof sizes) => {
      const r = await timedPost(agent, `${servers[who].baseUrl}/api/ai/chat`, { cookie: cookies[who] }, body(size));
      if (r.status !== 200) throw new Error(`${who} ${size}: ${r.status} ${r.body.slice(0, 200)}`);
      return r.ms;
    };
    // The stub asked directly as each build asks it: the baseline for one JSON answer, this build
    // streamed with its usage chunk (what the provider's own side of the change costs).
    const direct = async (stream: boolean, size: keyof typeof sizes) => {
      const payload = JSON.stringify({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: sizes[size] }],
        ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
      });
      const r = await timedPost(agent, `${stub.info.url}/chat/completions`, { authorization: "Bearer sk-bench" }, payload);
      if (r.status !== 200) throw new Error(`stub ${size}: ${r.status}`);
      return r.ms;
    };
    const result: Record<string, { baseline: number[]; current: number[]; difference: number[]; stubStreamedOverJson: number[] }> = {};
    console.log(`ab on the ${DATABASE} database`);
    for (const size of (Object.keys(sizes) as (keyof typeof sizes)[]).filter((s) => SIZES.includes(s))) {
      console.log(`ab ${size}: ${WARMUP} warm-ups per server ...`);
      for (let i = 0; i < WARMUP; i++) {
        await one("baseline", size);
        await one("current", size);
      }
      const r = (result[size] = {
        baseline: [] as number[],
        current: [] as number[],
        difference: [] as number[],
        stubStreamedOverJson: [] as number[],
      });
      for (let round = 0; round < ROUNDS; round++) {
        const b: number[] = [];
        const c: number[] = [];
        const json: number[] = [];
        const streamed: number[] = [];
        for (let i = 0; i < N; i++) {
          json.push(await direct(false, size));
          streamed.push(await direct(true, size));
          if (i % 2) {
            b.push(await one("baseline", size));
            c.push(await one("current", size));
          } else {
            c.push(await one("current", size));
            b.push(await one("baseline", size));
          }
        }
        r.baseline.push(median(b));
        r.current.push(median(c));
        r.difference.push(median(c) - median(b));
        r.stubStreamedOverJson.push(median(streamed) - median(json));
        console.log(
          `  round ${round + 1}: baseline ${fmt(median(b), 2)} | current ${fmt(median(c), 2)} | difference ${fmt(median(c) - median(b), 3)} ms | stub streamed ${fmt(median(streamed), 2)} - JSON ${fmt(median(json), 2)} = ${fmt(median(streamed) - median(json), 3)} ms`,
        );
      }
      console.log(
        `  ${size}: median difference ${fmt(median(r.difference), 3)} ms (current ${fmt(median(r.current), 2)} / baseline ${fmt(median(r.baseline), 2)} = ${fmt(median(r.current) / median(r.baseline), 3)}); the stub's streamed answer over its JSON one ${fmt(median(r.stubStreamedOverJson), 3)} ms`,
      );
    }
    let throughput: { baseline: number[]; current: number[]; ratio: number[] } | undefined;
    if (CONCURRENCY > 0) {
      const users = {
        current: await signInUsers(servers.current.baseUrl, CONCURRENCY, "ab-load-current"),
        baseline: await signInUsers(servers.baseline.baseUrl, CONCURRENCY, "ab-load-baseline"),
      };
      const load = async (who: "baseline" | "current") => {
        const r = await runPostLoad({
          url: `${servers[who].baseUrl}/api/ai/chat`,
          concurrency: CONCURRENCY,
          maxRequests: 1e9,
          maxMs: SECONDS * 1000,
          headers: (w) => ({ cookie: users[who][w] }),
          body: body("1k"),
        });
        if (r.errors > 0) throw new Error(`${who} under load: ${JSON.stringify(r.statuses)}`);
        return r.rps;
      };
      console.log(`ab c=${CONCURRENCY}: a warm-up slice each ...`);
      await load("baseline");
      await load("current");
      throughput = { baseline: [], current: [], ratio: [] };
      for (let round = 0; round < ROUNDS; round++) {
        const order: Array<"baseline" | "current"> = round % 2 ? ["current", "baseline"] : ["baseline", "current"];
        const rps = { baseline: 0, current: 0 };
        for (const who of order) rps[who] = await load(who);
        throughput.baseline.push(rps.baseline);
        throughput.current.push(rps.current);
        throughput.ratio.push(rps.current / rps.baseline);
        console.log(
          `  c=${CONCURRENCY} round ${round + 1}: baseline ${fmt(rps.baseline, 0)} req/s | current ${fmt(rps.current, 0)} req/s | current ÷ baseline ${fmt(rps.current / rps.baseline, 2)}`,
        );
      }
      console.log(
        `  c=${CONCURRENCY}: median current ÷ baseline ${fmt(median(throughput.ratio), 2)} (current ${fmt(median(throughput.current), 0)} / baseline ${fmt(median(throughput.baseline), 0)} req/s)`,
      );
    }
    mkdirSync("bench/results", { recursive: true });
    const file = path.join("bench/results", `ab-chat-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
    writeFileSync(
      file,
      JSON.stringify(
        {
          at: new Date().toISOString(),
          baseline: BASELINE,
          database: DATABASE,
          rounds: ROUNDS,
          n: N,
          warmup: WARMUP,
          result,
          concurrency: CONCURRENCY,
          throughput,
        },
        null,
        2,
      ),
    );
    console.log(`wrote ${file}`);
  } finally {
    for (const s of Object.values(servers)) {
      await s.stop();
      removeDir(s.dataDir);
    }
    for (const d of databases) await d.drop();
    await stub.stop();
  }
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
