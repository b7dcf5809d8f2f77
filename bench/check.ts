/**
 * npm run bench:check (bench/check.ts) — holds the line on the AI hot path's speed: the ratio of
 * charged POST /api/ai/chat to GET /api/bench/noop req/s at concurrency 16, on the embedded database,
 * over interleaved rounds, compared with the figure recorded in bench/check-baseline.json. A ratio
 * of two loads on the same server in the same minute is what a shared, noisy machine can measure
 * reliably; absolute req/s are not compared. The chat takes the standalone server's gateway lane (its
 * default, lib/server/gateway-lane.ts); the noop goes through Next's router.
 *
 * Fails (exit 1) only when the ratio falls below half of the recorded figure: noise never blocks a
 * landing, a change that halves the hot path's speed does. Also fails when a charge is not exact
 * (credits consumed must equal successful chats x 15). About 30 s once the build exists.
 *
 * The server is the production build `next start` in BENCH_DIST_DIR (default `.next`, the build the
 * e2e suite makes, so CI builds once; built here when missing or older than the sources), with the
 * OpenAI-compatible stub (its own process) as the provider. BENCH_CHECK_ROUNDS (5) rounds of
 * BENCH_CHECK_SECONDS (2) per kind, order alternating. BENCH_CHECK_RECORD=true writes the measured
 * ratio into bench/check-baseline.json (do it on a quiet machine, and say so in the commit).
 *
 * CPU per request too: the server process's CPU time (from /proc) over each slice's answered requests,
 * which another tenant's load on a shared machine does not inflate as it does wall time. Reported for
 * both kinds with the chat's CPU over the noop's, and recorded with the rest; fails when that CPU
 * ratio is more than twice the recorded one (a charged call's own work doubled against the framework's).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import path from "node:path";
import { creditsOf, signInUsers, startHelper } from "./lib/ai-server";
import { median, runPostLoad } from "./lib/ai-http";
import { cpuSeconds } from "./lib/process-cpu";
import { fmt } from "./lib/report";
import { ensureBuild, removeDir, startServer } from "@/tests/e2e/server";

const DIST_DIR = process.env.BENCH_DIST_DIR || ".next";
const ROUNDS = Number(process.env.BENCH_CHECK_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_CHECK_SECONDS ?? 2);
const CONCURRENCY = 16;
const CHAT_COST = 15;
const BASELINE = path.join(process.cwd(), "bench", "check-baseline.json");

interface Baseline {
  chatToNoop: number;
  /** Server CPU ms per charged chat and per noop, and the first over the second (c=16, medians of slices). */
  chatCpuMs?: number;
  noopCpuMs?: number;
  chatCpuToNoopCpu?: number;
  recordedAt: string;
  machine: string;
  note?: string;
}

async function main(): Promise<number> {
  const baseline = JSON.parse(readFileSync(BASELINE, "utf8")) as Baseline;
  const started = Date.now();
  ensureBuild(console.log, { distDir: DIST_DIR, label: "bench:check" });
  const stub = await startHelper<{ url: string }>("ai-stub-process.ts");
  const server = await startServer(
    {
      NEXT_DIST_DIR: DIST_DIR,
      LOG_LEVEL: "error",
      BENCH_ROUTES: "true",
      OPENAI_API_KEY: "x",
      OPENAI_BASE_URL: stub.info.url,
      PRICING_CONFIG: JSON.stringify({ tiers: { free: { monthlyCredits: 100_000_000 } } }),
    },
    { readyTimeoutMs: 120_000 },
  );
  try {
    const cookies = await signInUsers(server.baseUrl, CONCURRENCY, "bench-check");
    const body = JSON.stringify({ messages: [{ role: "user", content: "Say hello to the benchmark" }] });
    const load = (kind: "noop" | "chat", seconds: number) => {
      const base = { concurrency: CONCURRENCY, maxRequests: 1_000_000, maxMs: seconds * 1000 };
      return kind === "noop"
        ? runPostLoad({ ...base, url: `${server.baseUrl}/api/bench/noop` })
        : runPostLoad({ ...base, url: `${server.baseUrl}/api/ai/chat`, headers: (w) => ({ cookie: cookies[w] }), body });
    };
    const before = await creditsOf(server.baseUrl, cookies);
    let chats = 0;
    for (const kind of ["noop", "chat"] as const) {
      const warm = await load(kind, 1.5); // the JIT and the pools settle first
      if (kind === "chat") chats += warm.statuses["200"] ?? 0;
    }
    const ratios: number[] = [];
    const cpuMs: Record<"noop" | "chat", number[]> = { noop: [], chat: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? (["chat", "noop"] as const) : (["noop", "chat"] as const);
      const rps: Record<string, number> = {};
      for (const kind of order) {
        const cpu0 = cpuSeconds(server.pid);
        const r = await load(kind, SECONDS);
        cpuMs[kind].push(((cpuSeconds(server.pid) - cpu0) * 1000) / Math.max(1, r.requests));
        if (r.errors) throw new Error(`${kind}: unexpected answers ${JSON.stringify(r.statuses)}`);
        if (kind === "chat") chats += r.requests;
        rps[kind] = r.rps;
      }
      ratios.push(rps.chat / rps.noop);
      console.log(
        `round ${round + 1}: noop ${fmt(rps.noop, 0)} req/s, chat ${fmt(rps.chat, 0)} req/s, chat/noop ${fmt(rps.chat / rps.noop, 3)}; CPU per request noop ${fmt(cpuMs.noop[round], 3)} ms, chat ${fmt(cpuMs.chat[round], 3)} ms`,
      );
    }
    const consumed = before - (await creditsOf(server.baseUrl, cookies));
    const ratio = median(ratios);
    const floor = baseline.chatToNoop / 2;
    console.log(
      `\nbench:check: charged chat ÷ noop at c=${CONCURRENCY} (embedded database) = ${fmt(ratio, 3)} (median of ${ROUNDS}); recorded ${fmt(baseline.chatToNoop, 3)} on ${baseline.recordedAt} (${baseline.machine}); ${fmt((ratio / baseline.chatToNoop) * 100, 0)}% of it; fails below ${fmt(floor, 3)}`,
    );
    const chatCpu = median(cpuMs.chat);
    const noopCpu = median(cpuMs.noop);
    const cpuRatio = chatCpu / noopCpu;
    console.log(
      `server CPU per request at c=${CONCURRENCY}: charged chat ${fmt(chatCpu, 3)} ms, noop ${fmt(noopCpu, 3)} ms, chat ÷ noop ${fmt(cpuRatio, 3)}` +
        (baseline.chatCpuToNoopCpu
          ? `; recorded ${fmt(baseline.chatCpuMs ?? NaN, 3)} / ${fmt(baseline.noopCpuMs ?? NaN, 3)} ms, ratio ${fmt(baseline.chatCpuToNoopCpu, 3)}; fails above ${fmt(baseline.chatCpuToNoopCpu * 2, 3)}`
          : "; none recorded yet"),
    );
    console.log(`charges: ${chats} chats x ${CHAT_COST} = ${chats * CHAT_COST} credits expected, ${consumed} consumed`);
    console.log(`took ${Math.round((Date.now() - started) / 1000)} s`);
    if (consumed !== chats * CHAT_COST) {
      console.error("bench:check FAILED: the charges are not exact");
      return 1;
    }
    if (process.env.BENCH_CHECK_RECORD === "true") {
      const machine = `${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}`;
      writeFileSync(
        BASELINE,
        `${JSON.stringify(
          {
            ...baseline,
            chatToNoop: Number(ratio.toFixed(3)),
            chatCpuMs: Number(chatCpu.toFixed(3)),
            noopCpuMs: Number(noopCpu.toFixed(3)),
            chatCpuToNoopCpu: Number(cpuRatio.toFixed(3)),
            recordedAt: new Date().toISOString().slice(0, 10),
            machine,
          },
          null,
          2,
        )}\n`,
      );
      console.log(`recorded ${fmt(ratio, 3)} in ${path.relative(process.cwd(), BASELINE)}`);
    }
    if (baseline.chatCpuToNoopCpu && Number.isFinite(cpuRatio) && cpuRatio > baseline.chatCpuToNoopCpu * 2) {
      console.error(
        `bench:check FAILED: a charged chat's CPU is ${fmt(cpuRatio, 3)}x the noop's, more than twice the recorded ${fmt(baseline.chatCpuToNoopCpu, 3)}x`,
      );
      return 1;
    }
    if (ratio < floor) {
      console.error(
        `bench:check FAILED: chat ÷ noop ${fmt(ratio, 3)} is below half the recorded ${fmt(baseline.chatToNoop, 3)}: the charged hot path got at least twice as slow`,
      );
      return 1;
    }
    return 0;
  } finally {
    await server.stop();
    removeDir(server.dataDir);
    await stub.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
