/**
 * npm run bench:health (bench/health-under-load.ts): how quickly /api/health answers while one free
 * account sends 8 of the largest bodies /v1/chat/completions reads (tests/helpers/hostile-bodies.ts:
 * half at the 27.9 MB bound kept for images, half just under the text bound, with the 1M-token
 * gpt-4.1 offered so that bound is the largest a body can need), against the same server idle,
 * measured in the same run. The production bench build on the embedded database, offline AI.
 * BENCH_ROUNDS (3) rounds of load; writes bench/results/health-under-load-<time>.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ensureBenchBuild, startBenchServer } from "./lib/ai-server";
import { fmt } from "./lib/report";
import { healthUnderHostileBodies, healthWhile, keyFor, summarize } from "@/tests/helpers/hostile-bodies";
import { removeDir } from "@/tests/e2e/server";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

async function main(): Promise<void> {
  ensureBenchBuild();
  const server = await startBenchServer({ AI_OFFLINE: "true", AI_ALLOWED_MODELS: "gpt-4o-mini,gpt-4.1" });
  try {
    const secret = await keyFor(server.baseUrl, "bench-hostile@example.com");
    // Idle: the same loop for two seconds with nothing else going on.
    const idle = summarize(await healthWhile(server.baseUrl, new Promise((r) => setTimeout(r, 2_000))));
    console.log(`idle: p50 ${fmt(idle.p50, 2)} ms, p99 ${fmt(idle.p99, 2)} ms`);
    const rounds = [];
    for (let i = 0; i < ROUNDS; i++) {
      const load = await healthUnderHostileBodies(server.baseUrl, secret, 8, "gpt-4.1");
      rounds.push({
        p50: load.p50,
        p99: load.p99,
        max: load.max,
        samples: load.latencies.length,
        statuses: load.statuses,
        textLimit: load.textLimit,
      });
      console.log(
        `round ${i + 1}: p50 ${fmt(load.p50, 2)} ms, p99 ${fmt(load.p99, 2)} ms, max ${fmt(load.max, 1)} ms over ${load.latencies.length} requests; answers ${load.statuses.join(" ")}`,
      );
    }
    const worstP99 = Math.max(...rounds.map((r) => r.p99));
    console.log(`worst p99 under load ${fmt(worstP99, 1)} ms = ${fmt(worstP99 / idle.p99, 1)}x the idle p99 (${fmt(idle.p99, 2)} ms)`);
    mkdirSync("bench/results", { recursive: true });
    const file = path.join("bench/results", `health-under-load-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
    writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), idle, rounds }, null, 2));
    console.log(`wrote ${file}`);
  } finally {
    await server.stop();
    removeDir(server.dataDir);
  }
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
