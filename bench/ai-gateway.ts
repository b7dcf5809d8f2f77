/**
 * npm run bench:ai (bench/ai-gateway.ts) — the AI gateway benchmark, on the embedded database and, when
 * TEST_DATABASE_URL is set, on a fresh PostgreSQL database; writes the "AI gateway" section of
 * docs/BENCHMARKS.md and the raw numbers to bench/results/ai-gateway-<time>.json.
 *
 * One OpenAI-compatible stub (tests/helpers/openai-stub.ts, record off) runs as its own process, and
 * so does a peer gateway in front of the same stub: Portkey (npm @portkey-ai/gateway, a development
 * dependency of the benchmarks only; bench/lib/portkey-process.ts). Our server is the real `next
 * start` of a production build (NEXT_DIST_DIR=.next-bench) pointed at the stub with OPENAI_BASE_URL.
 * Every number is a ratio or a difference against a baseline measured in the same run, interleaved
 * request by request (latency) or slice by slice (throughput):
 *   1. latency at concurrency 1, p50/p90/p99: the chat completion sent to the stub directly, through
 *      Portkey, and through our charged POST /api/ai/chat (a user whose charge comes from subscription
 *      credits, and one whose subscription credits are 0 so it comes from bonus credits), with GET
 *      /api/bench/noop (the server's floor); added = kind - direct at the same percentile;
 *   2. throughput at concurrency 16: req/s of the stub direct, Portkey, our noop, our chat, our
 *      /v1/chat/completions with API keys and our signed-in GET /api/user/status (the plain read a
 *      dashboard polls: STATUS_USERS users over client addresses, so the `api` limits never refuse; a
 *      slice of it stops at STATUS_SLICE requests), and the CPU per request of each process in each
 *      kind's slices (our server, Portkey, PostgreSQL with its backends, the stub: bench/lib/process-cpu.ts);
 *   3. streaming at concurrency 1: POST /api/ai/stream vs the stub's own SSE stream: time to first
 *      token and the gap between chunks, paced (the stub waits BENCH_CHUNK_DELAY_MS between chunks,
 *      like a model producing tokens) and unpaced (chunks back to back: the gateway's own cost);
 *   4. BENCH_STREAMS (200) concurrent /api/ai/stream requests, BENCH_BURSTS (3) times, each burst after
 *      the same burst straight from the stub: every chunk the stub sent must arrive, in order, followed
 *      by the meta event and [DONE] (and the stub must see no early close).
 * Charges are checked: every bench user's credits (GET /api/ai/usage) before and after each phase
 * must differ by exactly (successful requests x cost).
 *
 * Credits: PRICING_CONFIG gives the free tier 100,000,000 monthly credits, so each signed-in bench
 * user starts with them through the app's own first-sign-in allocation (same charge path as any user);
 * the bonus user's are moved to a bonus purchase through the operator API (ADMIN_API_TOKEN) and its
 * auto-use switched on. After the PostgreSQL scenario it runs bench/ai-steps.ts (each step of the chat
 * path timed alone) to say where the added time goes.
 *
 * Settings: BENCH_ROUNDS (5), BENCH_LATENCY_N (200 per kind per round), BENCH_WARMUP (500 per kind), BENCH_CONCURRENCY (16),
 * BENCH_SECONDS per throughput slice (5), BENCH_STREAM_N (60), BENCH_STREAMS (200),
 * BENCH_CHUNK_DELAY_MS (10), BENCH_STUB_KEEPALIVE_MS (65000; 0 = the stub's own 1 s, see
 * bench/lib/ai-stub-process.ts), BENCH_STEPS=false to skip the step breakdown, BENCH_NO_DOC=true to
 * leave docs/BENCHMARKS.md alone, BENCH_SKIP_BUILD=true to reuse .next-bench as is,
 * BENCH_REPORT_FROM=<results json> to rewrite the section from a saved run without measuring
 * (BENCH_SECTION names the section, default "AI gateway"),
 * BENCH_OVERHEAD=false to skip the pricing and API-key overheads (bench/ai-overhead.ts, run after the
 * scenarios), BENCH_PROVIDERS=false to skip the vendor SDKs and routing (bench/ai-providers.ts),
 * BENCH_OBSERVABILITY=false to skip the metrics/tracing overhead run (bench/observability.ts, run last),
 * BENCH_DATABASES=postgres (or embedded) to run one scenario only, BENCH_PORTKEY=false to leave the
 * peer out, BENCH_PHASES=latency,throughput (default all: latency,throughput,stream,concurrent).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { cpus, loadavg, totalmem } from "node:os";
import path from "node:path";
import pg from "pg";
import {
  creditsOf,
  ensureBenchBuild,
  freshPostgres,
  signInUsers,
  startBenchServer,
  startHelper,
  type HelperProcess,
  type RunningServer,
} from "./lib/ai-server";
import {
  keepAliveAgent,
  mean,
  median,
  percentile,
  runPostLoad,
  timedPost,
  timedStream,
  type PostLoadResult,
  type TimedStream,
} from "./lib/ai-http";
import { portkeyHeaders, startPortkey, type PortkeyProcess } from "./lib/portkey-process";
import { cpuSeconds } from "./lib/process-cpu";
import { fmt, writeSection } from "./lib/report";
import { removeDir } from "@/tests/e2e/server";
import { STREAM_PROMPT, directStreamBody, streamBody } from "./lib/stream-request";
import { postmasterPid } from "./lib/postgres-side";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LATENCY_N = Number(process.env.BENCH_LATENCY_N ?? 200);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const STREAM_N = Number(process.env.BENCH_STREAM_N ?? 60);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 200);
/** How many times the concurrent burst runs (each beside the same burst straight from the stub). */
const BURSTS = Number(process.env.BENCH_BURSTS ?? 3);
const CHUNK_DELAY_MS = Number(process.env.BENCH_CHUNK_DELAY_MS ?? 10);
/** 200 streams over 25 users: 8 each, the default per-user cap on AI requests in progress (AI_MAX_CONCURRENT_PER_USER). */
const STREAM_USERS = 25;
const CPU_PASS = 300;
/** Which scenarios run: "embedded", "postgres" (comma-separated). */
const DATABASES = (process.env.BENCH_DATABASES ?? "embedded,postgres").split(",").map((d) => d.trim());
const PHASES = (process.env.BENCH_PHASES ?? "latency,throughput,stream,concurrent").split(",").map((p) => p.trim());
const WITH_PORTKEY = process.env.BENCH_PORTKEY !== "false";
const MODEL = "gpt-4o-mini";
const CREDITS = 100_000_000;
const CHAT_COST = 15;
const ADMIN_TOKEN = "bench-admin-token-0123456789abcdef0123456789";

const CHAT_PROMPT = "Say hello to the benchmark";
const expectedReply = (prompt: string) => `stub reply to: ${prompt}`;
const expectedPieces = (prompt: string) => expectedReply(prompt).match(/\S+\s*/g) ?? [];

type Stub = HelperProcess<{ url: string; port: number; keepAliveMs: number }>;

interface Dist {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
}
const dist = (values: number[]): Dist => ({
  n: values.length,
  p50: percentile(values, 50),
  p90: percentile(values, 90),
  p99: percentile(values, 99),
  mean: mean(values),
});

/** The kinds measured at concurrency 1, interleaved request by request. */
const LATENCY_KINDS = ["direct", "portkey", "noop", "chat", "chatBonus"] as const;
type LatencyKind = (typeof LATENCY_KINDS)[number];
/** The kinds measured at concurrency 16, interleaved slice by slice. */
const THROUGHPUT_KINDS = ["direct", "portkey", "noop", "chat", "v1", "status"] as const;
/** Requests in one slice of the status kind (its users' `api` limits bound the whole phase). */
const STATUS_SLICE = Number(process.env.BENCH_STATUS_SLICE ?? 4000);
/** The `api` category allows 100 requests per user and 200 per client address an hour: 90 each, at most. */
const STATUS_USERS = Math.ceil((300 + ROUNDS * STATUS_SLICE) / 90);
type ThroughputKind = (typeof THROUGHPUT_KINDS)[number];

interface CpuShares {
  server: number;
  portkey?: number;
  postgres?: number;
  stub: number;
}

interface StreamSummary {
  ttft: Dist;
  gap: Dist;
  total: Dist;
}

interface ScenarioResult {
  database: string;
  /** 1-minute load average of the machine when the scenario started and ended. */
  loadAvg?: { start: number; end: number };
  latency?: {
    kinds: Partial<Record<LatencyKind, Dist>>;
    /** Per round: p50 of the kind minus p50 of direct. */
    roundAddedP50: Partial<Record<LatencyKind, number[]>>;
    /** CPU time (user + system, all threads) per request of our server (noop, chat) and of Portkey's process. */
    cpuMsPerRequest: Partial<Record<LatencyKind, number>>;
  };
  throughput?: {
    rps: Partial<Record<ThroughputKind, number>>;
    p50: Partial<Record<ThroughputKind, number>>;
    p99: Partial<Record<ThroughputKind, number>>;
    /** Median of the per-round ratios chat ÷ kind. */
    chatRatio: Partial<Record<ThroughputKind, number>>;
    roundChatNoopRatios: number[];
    /** Charged requests of the rounds (chat and v1). */
    chatRequests: number;
    /** Charged requests of the warm-up (answered 200). */
    chatWarmUp: number;
    /**
     * CPU ms (user + system) per request answered in the kind's slices at this concurrency, median of
     * the rounds: our server's process, Portkey's, PostgreSQL's (its server and backends), the stub's.
     */
    cpuMsPerRequest?: Partial<Record<ThroughputKind, CpuShares>>;
  };
  stream?: Record<"paced" | "unpaced", { direct: StreamSummary; gateway: StreamSummary; portkey?: StreamSummary; chunks: number }> & {
    portkeyError?: string;
  };
  concurrent?: {
    /** Streams per burst. */
    streams: number;
    bursts: number;
    /** Each burst's TTFT p50, ms. */
    burstP50s: Array<{ direct: number; gateway: number }>;
    ok: number;
    chunksExpected: number;
    chunksReceived: number;
    /** Streams whose text did not arrive whole and in order. */
    dropped: number;
    withMetaAndDone: number;
    stub: { opened: number; completed: number; clientClosed: number };
    gatewayWallMs: number;
    directWallMs: number;
    gatewayTtft: Dist;
    directTtft: Dist;
    creditsCharged: number;
    problems: string[];
  };
  /** Credits consumed vs successful charged requests × cost, per phase (every bench user, from GET /api/ai/usage). */
  charges: Array<{ phase: string; requests: number; expected: number; consumed: number; exact: boolean }>;
}

function chatBody(): string {
  return JSON.stringify({ messages: [{ role: "user", content: CHAT_PROMPT }] });
}
/** The same chat through our OpenAI-compatible API; max_tokens keeps its quote at the flat price. */
function v1ChatBody(): string {
  return JSON.stringify({ model: MODEL, messages: [{ role: "user", content: CHAT_PROMPT }], max_tokens: 16 });
}
/** What our provider client sends upstream for that body (the "same request", sent to the stub directly). */
function directChatBody(): string {
  return JSON.stringify({ model: MODEL, messages: [{ role: "user", content: CHAT_PROMPT }] });
}

const STUB_AUTH = { authorization: "Bearer x" };

interface Target {
  url: string;
  headers: Record<string, string>;
  body?: string;
}

function latencyTargets(
  server: RunningServer,
  stub: Stub,
  portkey: PortkeyProcess | null,
  users: BenchUsers,
): Partial<Record<LatencyKind, Target>> {
  return {
    direct: { url: `${stub.info.url}/chat/completions`, headers: STUB_AUTH, body: directChatBody() },
    ...(portkey
      ? { portkey: { url: `${portkey.url}/v1/chat/completions`, headers: portkeyHeaders(stub.info.url), body: directChatBody() } }
      : {}),
    noop: { url: `${server.baseUrl}/api/bench/noop`, headers: {} },
    chat: { url: `${server.baseUrl}/api/ai/chat`, headers: { cookie: users.cookies[0] }, body: chatBody() },
    chatBonus: { url: `${server.baseUrl}/api/ai/chat`, headers: { cookie: users.bonusCookie }, body: chatBody() },
  };
}

async function latencyPhase(
  server: RunningServer,
  stub: Stub,
  portkey: PortkeyProcess | null,
  users: BenchUsers,
  label: string,
): Promise<NonNullable<ScenarioResult["latency"]>> {
  const agent = keepAliveAgent(1);
  const targets = latencyTargets(server, stub, portkey, users);
  const kinds = LATENCY_KINDS.filter((k) => targets[k]);
  const one = async (kind: LatencyKind): Promise<number> => {
    const t = targets[kind] as Target;
    if (!t.body) {
      const t0 = performance.now();
      await fetchGet(agent, t.url);
      return performance.now() - t0;
    }
    const r = await timedPost(agent, t.url, t.headers, t.body);
    if (r.status !== 200) throw new Error(`${label} ${kind}: status ${r.status} ${r.body.slice(0, 200)}`);
    return r.ms;
  };
  for (let i = 0; i < WARMUP; i++) for (const k of kinds) await one(k);
  const all = Object.fromEntries(kinds.map((k) => [k, [] as number[]])) as Record<LatencyKind, number[]>;
  const roundAddedP50 = Object.fromEntries(kinds.map((k) => [k, [] as number[]])) as Record<LatencyKind, number[]>;
  for (let round = 0; round < ROUNDS; round++) {
    const r = Object.fromEntries(kinds.map((k) => [k, [] as number[]])) as Record<LatencyKind, number[]>;
    // Request by request, in rotating order, so noise from the rest of the machine hits all alike.
    for (let i = 0; i < LATENCY_N; i++) {
      const order = [...kinds.slice(i % kinds.length), ...kinds.slice(0, i % kinds.length)];
      for (const k of order) r[k].push(await one(k));
    }
    for (const k of kinds) {
      roundAddedP50[k].push(median(r[k]) - median(r.direct));
      all[k].push(...r[k]);
    }
    console.log(`  ${label} latency round ${round + 1}: ${kinds.map((k) => `${k} p50 ${fmt(median(r[k]), 2)}`).join(" | ")} ms`);
  }
  // CPU accounting: the process's CPU time over CPU_PASS requests of one kind at a time.
  const cpuOf: Partial<Record<LatencyKind, number>> = {
    noop: server.pid,
    chat: server.pid,
    chatBonus: server.pid,
    ...(portkey ? { portkey: portkey.pid } : {}),
  };
  const cpu: Partial<Record<LatencyKind, number[]>> = {};
  for (const pass of [0, 1]) {
    for (const k of kinds) {
      const pid = cpuOf[k];
      if (!pid) continue;
      const c0 = cpuSeconds(pid) * 1000;
      for (let i = 0; i < CPU_PASS; i++) await one(k);
      (cpu[k] ??= []).push((cpuSeconds(pid) * 1000 - c0) / CPU_PASS);
      void pass;
    }
  }
  agent.destroy();
  const cpuMsPerRequest = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, mean(v as number[])]));
  console.log(
    `  ${label} CPU per request: ${Object.entries(cpuMsPerRequest)
      .map(([k, v]) => `${k} ${fmt(v, 2)} ms`)
      .join(", ")}`,
  );
  return { kinds: Object.fromEntries(kinds.map((k) => [k, dist(all[k])])), roundAddedP50, cpuMsPerRequest };
}

function fetchGet(agent: ReturnType<typeof keepAliveAgent>, url: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: "GET", agent }, (res) => {
      res.on("data", () => undefined);
      res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`GET ${u.pathname}: ${res.statusCode}`))));
    });
    req.on("error", reject);
    req.end();
  });
}

async function throughputPhase(
  server: RunningServer,
  stub: Stub,
  portkey: PortkeyProcess | null,
  users: BenchUsers,
  label: string,
  postgresPid?: number,
): Promise<NonNullable<ScenarioResult["throughput"]>> {
  let statusSent = 0;
  const load = (kind: ThroughputKind, max: number): Promise<PostLoadResult> => {
    const base = { concurrency: CONCURRENCY, maxRequests: max, maxMs: SECONDS * 1000 };
    switch (kind) {
      case "direct":
        return runPostLoad({ ...base, url: `${stub.info.url}/chat/completions`, headers: () => STUB_AUTH, body: directChatBody() });
      case "portkey":
        return runPostLoad({
          ...base,
          url: `${(portkey as PortkeyProcess).url}/v1/chat/completions`,
          headers: () => portkeyHeaders(stub.info.url),
          body: directChatBody(),
        });
      case "noop":
        return runPostLoad({ ...base, url: `${server.baseUrl}/api/bench/noop` });
      case "chat":
        return runPostLoad({
          ...base,
          url: `${server.baseUrl}/api/ai/chat`,
          headers: (w) => ({ cookie: users.cookies[w % users.cookies.length] }),
          body: chatBody(),
        });
      case "v1":
        return runPostLoad({
          ...base,
          url: `${server.baseUrl}/v1/chat/completions`,
          headers: (w) => ({ authorization: `Bearer ${users.keys[w % users.keys.length]}` }),
          body: v1ChatBody(),
        });
      case "status":
        // Two users per client address (TRUSTED_PROXY_HOPS is 1), each user's requests spread evenly:
        // under both `api` limits.
        return runPostLoad({
          ...base,
          maxRequests: Math.min(max, STATUS_SLICE),
          url: `${server.baseUrl}/api/user/status`,
          headers: () => {
            const user = statusSent++ % users.statusCookies.length;
            const address = Math.floor(user / 2);
            return { cookie: users.statusCookies[user], "x-forwarded-for": `10.9.${Math.floor(address / 250)}.${address % 250}` };
          },
        });
    }
  };
  // Each slice's CPU: what each process used while only that kind ran, per request it answered.
  const pids = {
    server: server.pid,
    portkey: portkey?.pid,
    postgres: postgresPid,
    stub: stub.child.pid as number,
  };
  const cpuNow = () => ({
    server: cpuSeconds(pids.server, { children: true }),
    portkey: pids.portkey ? cpuSeconds(pids.portkey) : NaN,
    postgres: pids.postgres ? cpuSeconds(pids.postgres, { children: true, reaped: true }) : NaN,
    stub: cpuSeconds(pids.stub),
  });
  const cpuRounds = Object.fromEntries(THROUGHPUT_KINDS.map((k) => [k, [] as CpuShares[]])) as Record<ThroughputKind, CpuShares[]>;
  const kinds = THROUGHPUT_KINDS.filter((k) => k !== "portkey" || portkey);
  let chatWarmUp = 0;
  for (const k of kinds) {
    const warm = await load(k, 300);
    if (k === "chat" || k === "v1") chatWarmUp += warm.statuses["200"] ?? 0;
  }
  const rounds = Object.fromEntries(kinds.map((k) => [k, [] as PostLoadResult[]])) as Record<ThroughputKind, PostLoadResult[]>;
  for (let round = 0; round < ROUNDS; round++) {
    const order = [...kinds.slice(round % kinds.length), ...kinds.slice(0, round % kinds.length)];
    for (const k of order) {
      const before = cpuNow();
      const r = await load(k, 1_000_000);
      const after = cpuNow();
      if (r.errors) throw new Error(`${label} throughput ${k}: errors ${JSON.stringify(r.statuses)}`);
      rounds[k].push(r);
      const per = (p: keyof CpuShares) => ((after[p] - before[p]) * 1000) / r.requests;
      cpuRounds[k].push({
        server: per("server"),
        stub: per("stub"),
        ...(pids.portkey ? { portkey: per("portkey") } : {}),
        ...(pids.postgres ? { postgres: per("postgres") } : {}),
      });
    }
    console.log(
      `  ${label} c=${CONCURRENCY} round ${round + 1}: ${kinds.map((k) => `${k} ${fmt(rounds[k][round].rps, 0)} req/s`).join(" | ")}`,
    );
  }
  const chatRatio = Object.fromEntries(kinds.map((k) => [k, median(rounds.chat.map((c, i) => c.rps / rounds[k][i].rps))]));
  return {
    rps: Object.fromEntries(kinds.map((k) => [k, median(rounds[k].map((r) => r.rps))])),
    p50: Object.fromEntries(kinds.map((k) => [k, median(rounds[k].flatMap((r) => r.latencies))])),
    p99: Object.fromEntries(
      kinds.map((k) => [
        k,
        percentile(
          rounds[k].flatMap((r) => r.latencies),
          99,
        ),
      ]),
    ),
    chatRatio,
    roundChatNoopRatios: rounds.chat.map((c, i) => c.rps / rounds.noop[i].rps),
    chatRequests: [...rounds.chat, ...rounds.v1].reduce((a, r) => a + r.requests, 0),
    chatWarmUp,
    cpuMsPerRequest: Object.fromEntries(
      kinds.map((k) => {
        const of = (p: keyof CpuShares) => median(cpuRounds[k].map((c) => c[p] as number));
        return [
          k,
          {
            server: of("server"),
            stub: of("stub"),
            ...(pids.portkey ? { portkey: of("portkey") } : {}),
            ...(pids.postgres ? { postgres: of("postgres") } : {}),
          },
        ];
      }),
    ),
  };
}

/**
 * Every text piece arrived, in order. Pieces that reach our provider client in one read (back to
 * back, or close together on a busy machine) go out as one text event: `exactChunks` false (the
 * gateway's streams) accepts fewer, larger chunks carrying the same text.
 */
function checkStream(s: TimedStream, kind: string, exactChunks = true): void {
  const pieces = expectedPieces(STREAM_PROMPT);
  const countOk = exactChunks ? s.texts.length === pieces.length : s.texts.length >= 1 && s.texts.length <= pieces.length;
  if (s.status !== 200 || s.errors.length || !countOk || s.texts.join("") !== expectedReply(STREAM_PROMPT)) {
    throw new Error(`${kind} stream: status ${s.status}, ${s.texts.length}/${pieces.length} chunks, errors ${s.errors.join("; ")}`);
  }
}

const gaps = (s: TimedStream) => s.chunkAt.slice(1).map((t, i) => t - s.chunkAt[i]);

async function streamPhase(
  server: RunningServer,
  stub: Stub,
  portkey: PortkeyProcess | null,
  cookie: string,
  label: string,
): Promise<NonNullable<ScenarioResult["stream"]>> {
  const out = {} as NonNullable<ScenarioResult["stream"]>;
  const agent = keepAliveAgent(1);
  type StreamKind = "direct" | "gateway" | "portkey";
  let kinds: StreamKind[] = portkey ? ["direct", "gateway", "portkey"] : ["direct", "gateway"];
  if (portkey) {
    // Portkey 1.15.2 cannot relay a stream from a custom host on Node.js by itself (it appends headers
    // to the upstream fetch Response's immutable headers: 500); bench/lib/portkey-node-streams.mjs
    // works around it. Measured when it can, left out (and said so) when it cannot. Its stream reader
    // waits 25 ms before relaying the first event (by design): its TTFT includes that.
    const probe = await timedStream(
      agent,
      `${portkey.url}/v1/chat/completions`,
      portkeyHeaders(stub.info.url),
      directStreamBody(),
      "openai",
    );
    if (probe.status !== 200) {
      kinds = ["direct", "gateway"];
      out.portkeyError = `Portkey answered a streamed request with ${probe.status} (${(probe.errors[0] ?? "").slice(0, 120)})`;
      console.log(`  ${label} stream: ${out.portkeyError}; streams measured without it`);
    }
  }
  for (const mode of ["paced", "unpaced"] as const) {
    await stub.ask({ chunkDelayMs: mode === "paced" ? CHUNK_DELAY_MS : 0 });
    const run = async (kind: StreamKind) => {
      const s =
        kind === "direct"
          ? await timedStream(agent, `${stub.info.url}/chat/completions`, STUB_AUTH, directStreamBody(), "openai")
          : kind === "portkey"
            ? await timedStream(
                agent,
                `${(portkey as PortkeyProcess).url}/v1/chat/completions`,
                portkeyHeaders(stub.info.url),
                directStreamBody(),
                "openai",
              )
            : await timedStream(agent, `${server.baseUrl}/api/ai/stream`, { cookie }, streamBody(), "gateway");
      checkStream(s, `${label} ${kind}`, kind === "direct");
      return s;
    };
    for (let i = 0; i < 10; i++) for (const k of kinds) await run(k);
    const acc: Record<StreamKind, TimedStream[]> = { direct: [], gateway: [], portkey: [] };
    for (let i = 0; i < STREAM_N; i++) {
      const order = [...kinds.slice(i % kinds.length), ...kinds.slice(0, i % kinds.length)];
      for (const k of order) acc[k].push(await run(k));
    }
    const summary = (list: TimedStream[]): StreamSummary => ({
      ttft: dist(list.map((s) => s.chunkAt[0])),
      gap: dist(list.flatMap(gaps)),
      total: dist(list.map((s) => s.chunkAt[s.chunkAt.length - 1])),
    });
    out[mode] = {
      direct: summary(acc.direct),
      gateway: summary(acc.gateway),
      ...(kinds.includes("portkey") ? { portkey: summary(acc.portkey) } : {}),
      chunks: expectedPieces(STREAM_PROMPT).length,
    };
    const pk = out[mode].portkey;
    console.log(
      `  ${label} stream ${mode}: ttft direct ${fmt(out[mode].direct.ttft.p50, 2)} gateway ${fmt(out[mode].gateway.ttft.p50, 2)}${pk ? ` portkey ${fmt(pk.ttft.p50, 2)}` : ""} ms | gap direct ${fmt(out[mode].direct.gap.p50, 2)} gateway ${fmt(out[mode].gateway.gap.p50, 2)} ms`,
    );
  }
  agent.destroy();
  return out;
}

async function concurrentPhase(
  server: RunningServer,
  stub: Stub,
  cookies: string[],
  label: string,
): Promise<NonNullable<ScenarioResult["concurrent"]>> {
  await stub.ask({ chunkDelayMs: CHUNK_DELAY_MS });
  try {
    return await concurrentStreams(server, stub, cookies, label);
  } finally {
    await stub.ask({ chunkDelayMs: 0 });
  }
}

async function concurrentStreams(
  server: RunningServer,
  stub: Stub,
  cookies: string[],
  label: string,
): Promise<NonNullable<ScenarioResult["concurrent"]>> {
  const pieces = expectedPieces(STREAM_PROMPT);
  const problems: string[] = [];

  // BURSTS bursts, each the same number of streams straight from the stub (the baseline) and then ours:
  // one burst's p50 moves by a factor of two between runs (connections opened, the other tenants of the
  // machine), so the ratio is taken over all of them, with each burst's p50 reported.
  const direct: TimedStream[] = [];
  const results: TimedStream[] = [];
  const directWalls: number[] = [];
  const gatewayWalls: number[] = [];
  const burstP50s: Array<{ direct: number; gateway: number }> = [];
  const counters = { opened: 0, completed: 0, clientClosed: 0 };
  for (let burst = 0; burst < BURSTS; burst++) {
    const directAgent = keepAliveAgent(STREAMS);
    let t0 = performance.now();
    const straight = await Promise.all(
      Array.from({ length: STREAMS }, () =>
        timedStream(directAgent, `${stub.info.url}/chat/completions`, STUB_AUTH, directStreamBody(), "openai"),
      ),
    );
    directWalls.push(performance.now() - t0);
    directAgent.destroy();
    for (const s of straight) checkStream(s, `${label} direct (concurrent)`);
    direct.push(...straight);

    await stub.ask({ resetStreams: true });
    const agent = keepAliveAgent(STREAMS);
    t0 = performance.now();
    const ours = await Promise.all(
      Array.from({ length: STREAMS }, (_, i) =>
        timedStream(agent, `${server.baseUrl}/api/ai/stream`, { cookie: cookies[i % cookies.length] }, streamBody(), "gateway", 120_000),
      ),
    );
    gatewayWalls.push(performance.now() - t0);
    agent.destroy();
    results.push(...ours);
    // Let the stub see the last closes, then count what our server opened.
    await new Promise((r) => setTimeout(r, 300));
    const seen = await stub.ask<{ opened: number; completed: number; clientClosed: number }>({ streams: true });
    counters.opened += seen.opened;
    counters.completed += seen.completed;
    counters.clientClosed += seen.clientClosed;
    burstP50s.push({
      direct: dist(straight.map((s) => s.chunkAt[0])).p50,
      gateway: dist(ours.filter((s) => s.chunkAt.length).map((s) => s.chunkAt[0])).p50,
    });
  }
  const sent = STREAMS * BURSTS;
  const gatewayWallMs = median(gatewayWalls);
  const directWallMs = median(directWalls);

  let chunksReceived = 0;
  let textMissing = 0;
  let ok = 0;
  let withMetaAndDone = 0;
  let creditsCharged = 0;
  results.forEach((s, i) => {
    chunksReceived += s.texts.length;
    const meta = s.meta as { creditsUsed?: number } | null;
    if (meta && s.done) withMetaAndDone++;
    creditsCharged += meta?.creditsUsed ?? 0;
    // Every piece's text, in order (pieces the provider client read together arrive as one event).
    const intact =
      s.status === 200 &&
      s.errors.length === 0 &&
      s.texts.length >= 1 &&
      s.texts.length <= pieces.length &&
      s.texts.join("") === expectedReply(STREAM_PROMPT);
    if (!intact) textMissing++;
    if (intact && meta && s.done) ok++;
    else if (problems.length < 10)
      problems.push(
        `stream ${i}: status ${s.status}, ${s.texts.length}/${pieces.length} chunks, meta ${Boolean(meta)}, done ${s.done}, errors ${s.errors.join("; ")}`,
      );
  });
  if (counters.opened !== sent || counters.completed !== sent || counters.clientClosed !== 0) {
    problems.push(`stub counters: ${JSON.stringify(counters)}`);
  }
  const result = {
    streams: STREAMS,
    bursts: BURSTS,
    burstP50s,
    ok,
    chunksExpected: sent * pieces.length,
    chunksReceived,
    dropped: textMissing,
    withMetaAndDone,
    stub: counters,
    gatewayWallMs,
    directWallMs,
    gatewayTtft: dist(results.filter((s) => s.chunkAt.length).map((s) => s.chunkAt[0])),
    directTtft: dist(direct.map((s) => s.chunkAt[0])),
    creditsCharged,
    problems,
  };
  console.log(
    `  ${label} ${BURSTS} × ${STREAMS} concurrent streams: ${ok} intact, ${result.dropped} with text missing, ${chunksReceived} text events for ${sent * pieces.length} pieces, wall ${fmt(gatewayWallMs, 0)} ms (direct ${fmt(directWallMs, 0)} ms), TTFT p50 per burst ${burstP50s.map((b) => `${fmt(b.gateway, 0)} (direct ${fmt(b.direct, 0)})`).join(", ")}, stub ${JSON.stringify(counters)}`,
  );
  return result;
}

interface Steps {
  [step: string]: { p50: number; p99: number; n: number };
}

/** bench/ai-steps.ts in its own process (fresh database, own stub): each step of the chat path timed alone. */
function runSteps(): Steps | null {
  console.log("[steps] bench/ai-steps.ts ...");
  const r = spawnSync(process.execPath, ["--import", "tsx", path.join("bench", "ai-steps.ts")], {
    cwd: process.cwd(),
    env: process.env,
    encoding: "utf8",
    timeout: 240_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const line = (r.stdout ?? "").split("\n").find((l) => l.startsWith("STEPS_JSON "));
  if (r.status !== 0 || !line) {
    console.log(`[steps] failed (exit ${r.status}): ${(r.stderr ?? "").slice(-1000)}`);
    return null;
  }
  process.stdout.write(
    (r.stdout ?? "")
      .split("\n")
      .filter((l) => l && !l.startsWith("STEPS_JSON"))
      .map((l) => `  [steps] ${l}\n`)
      .join(""),
  );
  return JSON.parse(line.slice("STEPS_JSON ".length)) as Steps;
}

async function creditBalance(databaseUrl: string | undefined): Promise<null | number> {
  if (!databaseUrl) return null;
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  const { rows } = await c.query("SELECT COALESCE(SUM(subscription_credits),0)::bigint AS s FROM credit_balances");
  await c.end();
  return Number(rows[0].s);
}

interface BenchUsers {
  /** Session cookies of users whose charges come from subscription credits. */
  cookies: string[];
  /** A user with 0 subscription credits whose charges come from bonus credits (auto-use on). */
  bonusCookie: string;
  /** An API key of each of `cookies`' users, for /v1/chat/completions. */
  keys: string[];
  /** Session cookies of STATUS_USERS more users, for GET /api/user/status. */
  statusCookies: string[];
}

/**
 * Signs the bench users in, and turns the last one into the bonus user: all its subscription credits
 * move to a bonus purchase (operator API, the same ledger functions an operator uses) and it switches
 * bonus auto-use on, so every charge of its has to draw on bonus credits.
 */
async function prepareUsers(baseUrl: string): Promise<BenchUsers> {
  const all = await signInUsers(baseUrl, Math.max(CONCURRENCY, STREAM_USERS) + 1, "ai-bench");
  const bonusCookie = all[all.length - 1];
  const session = (await (await fetch(`${baseUrl}/api/auth/session`, { headers: { cookie: bonusCookie } })).json()) as {
    user: { id: string };
  };
  const admin = (body: unknown) =>
    fetch(`${baseUrl}/api/admin/users/${session.user.id}/credits`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }).then(async (r) => {
      if (r.status !== 200) throw new Error(`operator adjustment: ${r.status} ${await r.text()}`);
    });
  await admin({
    amount: -CREDITS,
    bucket: "subscription",
    reason: "bench: charges come from bonus credits",
    idempotencyKey: "bench-bonus-sub",
  });
  await admin({ amount: CREDITS, bucket: "bonus", reason: "bench: charges come from bonus credits", idempotencyKey: "bench-bonus-bonus" });
  const prefs = await fetch(`${baseUrl}/api/credits/preferences`, {
    method: "PATCH",
    headers: { cookie: bonusCookie, "content-type": "application/json" },
    body: JSON.stringify({ bonusCreditsAutoUse: true }),
  });
  if (prefs.status !== 200) throw new Error(`auto-use: ${prefs.status} ${await prefs.text()}`);
  const cookies = all.slice(0, -1);
  const keys = await Promise.all(
    cookies.map(async (cookie) => {
      const r = await fetch(`${baseUrl}/api/keys`, {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify({ name: "bench" }),
      });
      if (r.status !== 200) throw new Error(`API key: ${r.status} ${await r.text()}`);
      return ((await r.json()) as { secret: string }).secret;
    }),
  );
  const statusCookies = await signInUsers(baseUrl, STATUS_USERS, "ai-bench-status");
  return { cookies, bonusCookie, keys, statusCookies };
}

/** Runs a phase and checks its charges: credits consumed across every bench user = successful charged requests × cost. */
async function charged<T>(
  baseUrl: string,
  users: BenchUsers,
  phase: string,
  charges: ScenarioResult["charges"],
  run: () => Promise<T>,
  count: (result: T) => { requests: number; cost: number },
): Promise<T> {
  const cookies = [...users.cookies, users.bonusCookie];
  const before = await creditsOf(baseUrl, cookies);
  const result = await run();
  const consumed = before - (await creditsOf(baseUrl, cookies));
  const { requests, cost } = count(result);
  charges.push({ phase, requests, expected: cost, consumed, exact: consumed === cost });
  console.log(
    `  charges ${phase}: ${requests} charged requests, ${cost} credits expected, ${consumed} consumed${consumed === cost ? "" : "  <-- MISMATCH"}`,
  );
  return result;
}

async function scenario(
  database: string,
  stub: Stub,
  portkey: PortkeyProcess | null,
  databaseUrl?: string,
  postgresPid?: number,
): Promise<ScenarioResult> {
  const label = `[${database}]`;
  console.log(`${label} starting next start ...`);
  const server = await startBenchServer({
    BENCH_ROUTES: "true",
    OPENAI_API_KEY: "x",
    OPENAI_BASE_URL: stub.info.url,
    PRICING_CONFIG: JSON.stringify({ tiers: { free: { monthlyCredits: CREDITS } } }),
    ADMIN_API_TOKEN: ADMIN_TOKEN,
    DATABASE_URL: databaseUrl,
  });
  const loadStart = loadavg()[0];
  const result: ScenarioResult = { database, charges: [] };
  // The stub answers at once unless a stream phase paces it: a scenario after another's streams
  // must not inherit its 10 ms pauses (every chat is streamed upstream: ~80 ms per chat).
  await stub.ask({ chunkDelayMs: 0 });
  try {
    const users = await prepareUsers(server.baseUrl);
    const base = server.baseUrl;
    if (PHASES.includes("latency")) {
      const chatsPerKind = WARMUP + ROUNDS * LATENCY_N + 2 * CPU_PASS;
      result.latency = await charged(
        base,
        users,
        "latency",
        result.charges,
        () => latencyPhase(server, stub, portkey, users, label),
        () => ({
          requests: 2 * chatsPerKind,
          cost: 2 * chatsPerKind * CHAT_COST,
        }),
      );
    }
    if (PHASES.includes("throughput")) {
      result.throughput = await charged(
        base,
        users,
        "throughput",
        result.charges,
        () => throughputPhase(server, stub, portkey, users, label, postgresPid),
        (t) => ({
          requests: t.chatRequests + t.chatWarmUp,
          cost: (t.chatRequests + t.chatWarmUp) * CHAT_COST,
        }),
      );
    }
    if (PHASES.includes("stream")) result.stream = await streamPhase(server, stub, portkey, users.cookies[0], label);
    if (PHASES.includes("concurrent")) {
      const before = await creditBalance(databaseUrl);
      result.concurrent = await concurrentPhase(server, stub, users.cookies.slice(0, STREAM_USERS), label);
      const after = await creditBalance(databaseUrl);
      if (before !== null && after !== null && before - after !== result.concurrent.creditsCharged) {
        result.concurrent.problems.push(
          `balances moved by ${before - after} credits but the streams report ${result.concurrent.creditsCharged}`,
        );
      }
    }
    result.loadAvg = { start: loadStart, end: loadavg()[0] };
    return result;
  } finally {
    await server.stop();
    removeDir(server.dataDir);
  }
}

const KIND_LABEL: Record<LatencyKind, string> = {
  direct: "stub, direct",
  portkey: "Portkey → stub",
  noop: "our `/api/bench/noop` (the server's floor)",
  chat: "our charged `/api/ai/chat` → stub, subscription credits",
  chatBonus: "our charged `/api/ai/chat` → stub, bonus credits",
};

const met = (ok: boolean) => (ok ? "met" : "**missed**");

function latencyTable(r: ScenarioResult, steps?: unknown): string[] {
  const l = r.latency;
  if (!l) return [];
  const d = l.kinds.direct as Dist;
  const pk = l.kinds.portkey;
  const rows = LATENCY_KINDS.filter((k) => l.kinds[k]).map((k) => {
    const x = l.kinds[k] as Dist;
    const added = (p: "p50" | "p90" | "p99") => x[p] - d[p];
    const vsPortkey = pk && k !== "direct" && k !== "portkey" ? fmt(added("p50") / (pk.p50 - d.p50), 2) : "";
    return `| ${KIND_LABEL[k]} | ${fmt(x.p50, 2)} | ${fmt(x.p90, 2)} | ${fmt(x.p99, 2)} | ${k === "direct" ? "" : `**${fmt(added("p50"), 2)}**`} | ${k === "direct" ? "" : fmt(added("p90"), 2)} | ${k === "direct" ? "" : `**${fmt(added("p99"), 2)}**`} | ${fmt(x.p50 / d.p50, 2)} | ${vsPortkey} | ${l.cpuMsPerRequest[k] !== undefined ? fmt(l.cpuMsPerRequest[k] as number, 2) : ""} |`;
  });
  const s = r.stream?.paced;
  if (s) {
    const a = (p: "p50" | "p90" | "p99") => s.gateway.ttft[p] - s.direct.ttft[p];
    rows.push(
      `| our \`/api/ai/stream\` → stub, time to first token (stub paced ${CHUNK_DELAY_MS} ms) | ${fmt(s.gateway.ttft.p50, 2)} | ${fmt(s.gateway.ttft.p90, 2)} | ${fmt(s.gateway.ttft.p99, 2)} | **${fmt(a("p50"), 2)}** | ${fmt(a("p90"), 2)} | **${fmt(a("p99"), 2)}** | ${fmt(s.gateway.ttft.p50 / s.direct.ttft.p50, 2)} | | |`,
    );
  }
  void steps;
  return [
    `| ${r.database}: kind | p50 ms | p90 ms | p99 ms | added p50 | added p90 | added p99 | p50 ÷ stub | added p50 ÷ Portkey's | CPU ms per request |`,
    "|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
  ];
}

function targetLines(r: ScenarioResult): string[] {
  const out: string[] = [];
  const l = r.latency;
  if (l) {
    const d = l.kinds.direct as Dist;
    const pkAdded = l.kinds.portkey ? (l.kinds.portkey as Dist).p50 - d.p50 : NaN;
    for (const k of ["chat", "chatBonus"] as const) {
      const x = l.kinds[k];
      if (!x) continue;
      const p50 = x.p50 - d.p50;
      const p99 = x.p99 - d.p99;
      out.push(
        `${r.database}, ${k === "chat" ? "subscription credits" : "bonus credits"}: added p50 ${fmt(p50, 2)} ms (≤ 2: ${met(p50 <= 2)}; ≤ Portkey's ${fmt(pkAdded, 2)}: ${Number.isNaN(pkAdded) ? "not measured" : met(p50 <= pkAdded)}; ≤ 1.5 × Portkey's: ${Number.isNaN(pkAdded) ? "not measured" : `${fmt(p50 / pkAdded, 2)}×, ${met(p50 <= 1.5 * pkAdded)}`}), added p99 ${fmt(p99, 2)} ms (≤ 8: ${met(p99 <= 8)})`,
      );
    }
  }
  const s = r.stream?.paced;
  if (s) {
    const added = s.gateway.ttft.p50 - s.direct.ttft.p50;
    const pkAddedTtft = s.portkey ? s.portkey.ttft.p50 - s.direct.ttft.p50 : NaN;
    out.push(
      `${r.database}: stream TTFT added p50 ${fmt(added, 2)} ms (≤ 3: ${met(added <= 3)}; ≤ Portkey's ${fmt(pkAddedTtft, 2)} + 0.5: ${Number.isNaN(pkAddedTtft) ? `not measured${r.stream?.portkeyError ? `: ${r.stream.portkeyError}` : ""}` : met(added <= pkAddedTtft + 0.5)})`,
    );
  }
  const c = r.concurrent;
  if (c)
    out.push(
      `${r.database}: ${c.streams} concurrent stream starts (${c.bursts} bursts), TTFT p50 ${fmt(c.gatewayTtft.p50, 1)} ms vs ${fmt(c.directTtft.p50, 1)} direct = ${fmt(c.gatewayTtft.p50 / c.directTtft.p50, 2)}× (≤ 3: ${met(c.gatewayTtft.p50 <= 3 * c.directTtft.p50)}; per burst ${c.burstP50s.map((b) => `${fmt(b.gateway / b.direct, 1)}×`).join(", ")})`,
    );
  if (r.throughput) {
    const t = r.throughput;
    const statusCpu = t.cpuMsPerRequest?.status?.server;
    const portkeyCpu = t.cpuMsPerRequest?.portkey?.portkey;
    if (statusCpu !== undefined && portkeyCpu !== undefined)
      out.push(
        `${r.database}: CPU per signed-in GET /api/user/status ${fmt(statusCpu, 2)} ms (server process) ÷ Portkey's per proxied chat ${fmt(portkeyCpu, 2)} ms = ${fmt(statusCpu / portkeyCpu, 2)}× (≤ 1: ${met(statusCpu <= portkeyCpu)})`,
      );
    if (t.chatRatio.portkey !== undefined)
      out.push(
        `${r.database}: c=${CONCURRENCY} charged chat req/s ÷ Portkey's ${fmt(t.chatRatio.portkey, 2)} (≥ 1: ${met(t.chatRatio.portkey >= 1)})`,
      );
    if (t.chatRatio.noop !== undefined)
      out.push(
        `${r.database}: c=${CONCURRENCY} charged chat req/s ÷ our noop ${fmt(t.chatRatio.noop, 2)} (≥ 0.8: ${met(t.chatRatio.noop >= 0.8)})`,
      );
  }
  for (const c of r.charges)
    out.push(
      `${r.database}: charges, ${c.phase}: ${c.requests.toLocaleString("en-US")} charged requests × ${CHAT_COST} = ${c.expected.toLocaleString("en-US")} credits, ${c.consumed.toLocaleString("en-US")} consumed (${c.exact ? "exact" : "**NOT exact**"})`,
    );
  return out.map((line) => `- ${line}`);
}

function throughputTable(results: ScenarioResult[]): string[] {
  const rows = results.flatMap((r) => {
    const t = r.throughput;
    if (!t) return [];
    return THROUGHPUT_KINDS.filter((k) => t.rps[k] !== undefined).map((k) => {
      const rps = t.rps[k] as number;
      const label =
        k === "chat"
          ? "our charged `/api/ai/chat` → stub"
          : k === "v1"
            ? "our charged `/v1/chat/completions` (API key) → stub"
            : k === "status"
              ? "our signed-in `GET /api/user/status`"
              : k === "noop"
                ? "our `/api/bench/noop`"
                : k === "portkey"
                  ? "Portkey → stub"
                  : "stub, direct";
      return `| ${r.database} | ${label} | ${fmt(rps, 0)} | ${fmt(rps / (t.rps.direct as number), 2)} | ${t.rps.portkey ? fmt(rps / t.rps.portkey, 2) : ""} | ${fmt(rps / (t.rps.noop as number), 2)} | ${fmt(t.p50[k] as number, 1)} / ${fmt(t.p99[k] as number, 1)} |`;
    });
  });
  return ["| Database | kind | req/s | ÷ stub | ÷ Portkey | ÷ our noop | p50 / p99 ms |", "|---|---|---|---|---|---|---|", ...rows];
}

/** CPU per request at the throughput phase's concurrency, each against Portkey's per proxied chat. */
function throughputCpuTable(results: ScenarioResult[]): string[] {
  const rows = results.flatMap((r) => {
    const cpu = r.throughput?.cpuMsPerRequest;
    if (!cpu) return [];
    const portkeyMs = cpu.portkey?.portkey;
    const vs = (ms: number) => (portkeyMs ? `**${fmt(ms / portkeyMs, 2)}×**` : "");
    return (["portkey", "noop", "chat", "v1", "status"] as const)
      .filter((k) => cpu[k])
      .map((k) => {
        const c = cpu[k] as CpuShares;
        const own = k === "portkey" ? (c.portkey as number) : c.server;
        const pg = k === "portkey" || c.postgres === undefined ? undefined : c.postgres;
        const label =
          k === "portkey"
            ? "Portkey, proxied chat (its process)"
            : k === "noop"
              ? "our `/api/bench/noop` (server process)"
              : k === "chat"
                ? "our charged `/api/ai/chat` (server process)"
                : k === "v1"
                  ? "our charged `/v1/chat/completions` (server process)"
                  : "our signed-in `GET /api/user/status` (server process)";
        return `| ${r.database} | ${label} | ${fmt(own, 2)} | ${vs(own)} | ${pg === undefined ? "" : fmt(pg, 2)} | ${pg === undefined ? "" : vs(own + pg)} | ${fmt(c.stub, 2)} |`;
      });
  });
  if (rows.length === 0) return [];
  return [
    "| Database | kind | CPU ms per request | ÷ Portkey's | PostgreSQL's CPU ms | with PostgreSQL's, ÷ Portkey's | the stub's CPU ms |",
    "|---|---|---|---|---|---|---|",
    ...rows,
  ];
}

function report(results: ScenarioResult[], startedAt: Date, steps: Steps | null, stubKeepAliveMs: number): string {
  const cpu = cpus();
  const stepRows = steps ? Object.entries(steps).map(([k, v]) => `| ${STEP_NAMES[k] ?? k} | ${fmt(v.p50, 2)} | ${fmt(v.p99, 2)} |`) : [];
  const stRows = results.flatMap((r) =>
    r.stream
      ? (["paced", "unpaced"] as const).map((mode) => {
          const s = (r.stream as NonNullable<ScenarioResult["stream"]>)[mode];
          const pk = s.portkey
            ? `${fmt(s.portkey.ttft.p50, 2)} / ${fmt(s.portkey.ttft.p99, 2)} | **${fmt(s.portkey.ttft.p50 - s.direct.ttft.p50, 2)}**`
            : " | ";
          return `| ${r.database} | ${mode === "paced" ? `${CHUNK_DELAY_MS} ms` : "0 ms"} | ${fmt(s.direct.ttft.p50, 2)} / ${fmt(s.direct.ttft.p99, 2)} | ${fmt(s.gateway.ttft.p50, 2)} / ${fmt(s.gateway.ttft.p99, 2)} | **${fmt(s.gateway.ttft.p50 - s.direct.ttft.p50, 2)}** / ${fmt(s.gateway.ttft.p99 - s.direct.ttft.p99, 2)} | ${pk} | ${fmt(s.direct.gap.p50, 2)} / ${fmt(s.direct.gap.p99, 2)} | ${fmt(s.gateway.gap.p50, 2)} / ${fmt(s.gateway.gap.p99, 2)} | **${fmt(s.gateway.gap.mean - s.direct.gap.mean, 3)}** | ${fmt(s.gateway.total.p50 / s.direct.total.p50, 2)} |`;
        })
      : [],
  );
  const ccRows = results.flatMap((r) => {
    const c = r.concurrent;
    if (!c) return [];
    return [
      `| ${r.database} | ${c.streams} × ${c.bursts} | ${c.ok} | ${c.chunksReceived} / ${c.chunksExpected} | **${c.dropped}** | ${c.withMetaAndDone} | ${c.stub.opened} / ${c.stub.completed} / ${c.stub.clientClosed} | ${fmt(c.directWallMs, 0)} | ${fmt(c.gatewayWallMs, 0)} | ${fmt(c.gatewayWallMs / c.directWallMs, 2)} | ${fmt(c.directTtft.p50, 0)} / ${fmt(c.directTtft.p99, 0)} | ${fmt(c.gatewayTtft.p50, 0)} / ${fmt(c.gatewayTtft.p99, 0)} | ${c.creditsCharged} |`,
    ];
  });
  const problems = results.flatMap((r) => (r.concurrent?.problems ?? []).map((p) => `- ${r.database}: ${p}`));
  const anyPortkey = results.some((r) => r.latency?.kinds.portkey);
  return `
\`npm run bench:ai\` (bench/ai-gateway.ts) on ${startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC. Machine: ${cpu.length} × ${cpu[0]?.model ?? "CPU"}, ${Math.round(totalmem() / 2 ** 30)} GB, Node ${process.version}; the load generator, our server, Portkey, the stub and PostgreSQL share those 2 cores, so compare the **differences and ratios**, each measured in the same run against a baseline interleaved with it.${
    results.some((r) => r.loadAvg)
      ? ` Machine load (1-minute load average at the start → end of each scenario; above 2, processes were waiting for a core): ${results.map((r) => (r.loadAvg ? `${r.database} ${fmt(r.loadAvg.start, 1)} → ${fmt(r.loadAvg.end, 1)}` : `${r.database} n/a`)).join(", ")}.`
      : ""
  }

Setup: our server is \`next build\` (NEXT_DIST_DIR=.next-bench) run by \`next start\` on 127.0.0.1 in production mode, with \`OPENAI_API_KEY=x\` and \`OPENAI_BASE_URL\` = the OpenAI-compatible stub (tests/helpers/openai-stub.ts, request recording off, its own process, idle connections kept ${stubKeepAliveMs === 1000 ? "1 s" : `${fmt(stubKeepAliveMs / 1000, 0)} s`}). ${anyPortkey ? "The peer is the Portkey AI gateway (npm `@portkey-ai/gateway` 1.15.2, its own Node process on 127.0.0.1, production mode) in front of the same stub (`x-portkey-provider: openai`, `x-portkey-custom-host` = the stub). " : ""}Every request of ours is really charged: 15 credits reserved before the upstream call and settled after, in the ledger (\`PRICING_CONFIG\` gives the free tier ${CREDITS.toLocaleString("en-US")} monthly credits, so every bench user, signed in through the dev sign-in, starts with them; the bonus user's are moved to a bonus purchase through the operator API and its bonus auto-use is on, so its charges draw on bonus credits). PostgreSQL: a fresh database on the \`TEST_DATABASE_URL\` server (PostgreSQL 15 on loopback, fsync off as scripts/test-services.sh starts it), DATABASE_POOL_MAX 10. Request: \`{"messages":[{"role":"user","content":"${CHAT_PROMPT}"}]}\`; the stub and Portkey get the completion our provider client sends upstream (\`model\` ${MODEL}, same messages), with the same keep-alive client.

**Latency at concurrency 1** (${ROUNDS} rounds × ${LATENCY_N} requests per kind, all kinds interleaved request by request in rotating order after ${WARMUP} warm-ups each (until the JIT has settled: p50s still fall over the first few hundred requests); ms over all ${ROUNDS * LATENCY_N} samples of a kind; "added" = kind − stub direct at the same percentile; CPU = user + system time of the process (our server, or Portkey's) over ${CPU_PASS} sequential requests of one kind, twice, after the rounds). The stream row: \`/api/ai/stream\` time to first token against the stub's own SSE for the same request (${STREAM_N} streams each, interleaved).

${results.map((r) => latencyTable(r, steps).join("\n")).join("\n\n")}

**Throughput at concurrency ${CONCURRENCY}** (${ROUNDS} rounds of ${SECONDS} s per kind after 300 warm-ups, kinds in rotating order; ${CONCURRENCY} workers, worker *w* signed in as bench user *w*; req/s are medians over rounds, ratios are of those medians).

${throughputTable(results).join("\n")}

**CPU per request at concurrency ${CONCURRENCY}** (user + system time from /proc of each process over each kind's slices, divided by the requests answered in them; median of the rounds). PostgreSQL's counts its server and every backend; the stub's is the same work for every kind.

${throughputCpuTable(results).join("\n")}

Targets (issues 17 and 36):

${results.flatMap(targetLines).join("\n")}
${
  steps
    ? `
Where the time goes (PostgreSQL; \`bench/ai-steps.ts\`, run by this bench: each step of the chat path called alone in one Node process at concurrency 1 against a fresh database and the stub, ${Object.values(steps)[0]?.n ?? 0} samples per step interleaved; ms):

| Step | p50 | p99 |
|---|---|---|
${stepRows.join("\n")}
`
    : ""
}
${
  stRows.length
    ? `
**Streaming at concurrency 1** (\`/api/ai/stream\` vs the stub's own SSE for the same request, ${STREAM_N} streams each interleaved after 10 warm-ups; ${expectedPieces(STREAM_PROMPT).length} text chunks per answer; "paced": the stub waits ${CHUNK_DELAY_MS} ms before each chunk, like a model producing tokens; "unpaced": back to back, which exposes the gateway's own per-chunk cost; pieces that reach our provider client in one read go out as one text event, so the unpaced gaps are over fewer chunks). Portkey relays the same stub stream to the same client (with bench/lib/portkey-node-streams.mjs preloaded: on Node its streams otherwise answer 500; its stream reader waits 25 ms before the first event by design, which its TTFT includes). TTFT = request sent → first text chunk received; gap = time between consecutive text chunks; "added gap" = difference of the mean gaps; "total ratio" = p50 time to the last chunk, gateway ÷ direct. ms.

| Database | stub chunk delay | direct TTFT p50 / p99 | gateway TTFT p50 / p99 | added TTFT p50 / p99 | Portkey TTFT p50 / p99 (its OpenAI stream) | Portkey added TTFT p50 | direct gap p50 / p99 | gateway gap p50 / p99 | added gap (mean) | total ratio |
|---|---|---|---|---|---|---|---|---|---|---|
${stRows.join("\n")}
`
    : ""
}${
    ccRows.length
      ? `
**${STREAMS} concurrent streams, ${BURSTS} bursts** (each burst's streams all started at once, ${STREAM_USERS} users, stub paced at ${CHUNK_DELAY_MS} ms; each burst after the same ${STREAMS} streams straight from the stub ("direct"), and the TTFT percentiles over every stream of every burst; each stream is checked against what the stub sends for that request: the same text in order (pieces that reach our provider client in one read go out as one event, so under load there are fewer events than pieces), then \`event: meta\` and \`[DONE]\`; the stub counts streams opened / completed / closed early by its client (ours, every burst); wall = a burst's, median of the bursts).

| Database | streams × bursts | intact | text events received / pieces sent | streams with text missing | meta + [DONE] | stub opened / completed / closed early | direct wall ms | gateway wall ms | wall ratio | direct TTFT p50 / p99 | gateway TTFT p50 / p99 | credits charged |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
${ccRows.join("\n")}
`
      : ""
  }${problems.length ? `\nProblems seen:\n${problems.join("\n")}\n` : ""}`;
}

const STEP_NAMES: Record<string, string> = {
  session: "session: `getSessionUser` (JWT session decode)",
  flags: "feature flags: `flags()`",
  body: "body: read and validate the JSON body (zod)",
  reserve: "`reserveCredits`, subscription credits",
  reserveBonus: "`reserveCredits`, bonus credits",
  settle: "`settleReservation`",
  provider: "provider `chat()` → stub (our client)",
  sdk: "provider `chat()` → stub (openai SDK)",
  direct: 'the same completion to the stub with node:http (the "direct" baseline)',
  response: "response: `Response.json` of the answer",
};

/** BENCH_REPORT_FROM=bench/results/ai-gateway-<time>.json: writes the section again from a saved run (same settings). */
function reportFromFile(file: string): void {
  const saved = JSON.parse(readFileSync(file, "utf8")) as { results: ScenarioResult[]; steps: Steps | null; stubKeepAliveMs: number };
  const stamp = path.basename(file).match(/(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z/);
  if (!stamp) throw new Error(`no time stamp in ${file}`);
  const startedAt = new Date(`${stamp[1]}T${stamp[2]}:${stamp[3]}:${stamp[4]}.${stamp[5]}Z`);
  const section = process.env.BENCH_SECTION ?? "AI gateway";
  writeSection(
    path.join(process.cwd(), "docs", "BENCHMARKS.md"),
    section,
    report(saved.results, startedAt, saved.steps, saved.stubKeepAliveMs),
  );
  console.log(`wrote the ${section} section of docs/BENCHMARKS.md from ${file}`);
}

async function main(): Promise<void> {
  if (process.env.BENCH_REPORT_FROM) return reportFromFile(process.env.BENCH_REPORT_FROM);
  const startedAt = new Date();
  ensureBenchBuild();
  const stub = await startHelper<{ url: string; port: number; keepAliveMs: number }>("ai-stub-process.ts");
  const portkey = WITH_PORTKEY ? await startPortkey() : null;
  const results: ScenarioResult[] = [];
  let steps: Steps | null = null;
  const stubKeepAliveMs = stub.info.keepAliveMs;
  try {
    if (DATABASES.includes("embedded")) results.push(await scenario("embedded (PGlite)", stub, portkey));
    const admin = process.env.TEST_DATABASE_URL;
    if (admin && DATABASES.includes("postgres")) {
      const db = await freshPostgres(admin, "bench_ai");
      try {
        results.push(await scenario("PostgreSQL", stub, portkey, db.url, await postmasterPid(db.url)));
      } finally {
        await db.drop();
      }
      if (process.env.BENCH_STEPS !== "false") steps = runSteps();
    } else if (DATABASES.includes("postgres")) {
      console.log('TEST_DATABASE_URL is not set: PostgreSQL skipped (eval "$(scripts/test-services.sh env)")');
    }
  } finally {
    await portkey?.stop();
    await stub.stop();
  }
  const root = process.cwd();
  mkdirSync(path.join(root, "bench", "results"), { recursive: true });
  writeFileSync(
    path.join(root, "bench", "results", `ai-gateway-${startedAt.toISOString().replace(/[:.]/g, "-")}.json`),
    JSON.stringify({ results, steps, stubKeepAliveMs }, null, 2),
  );
  if (process.env.BENCH_NO_DOC !== "true") {
    writeSection(path.join(root, "docs", "BENCHMARKS.md"), "AI gateway", report(results, startedAt, steps, stubKeepAliveMs));
    console.log("wrote the AI gateway section of docs/BENCHMARKS.md");
  }
  if (process.env.BENCH_OVERHEAD !== "false") runOverhead();
  if (process.env.BENCH_PROVIDERS !== "false") runProviders();
  if (process.env.BENCH_OBSERVABILITY !== "false") runObservability();
}

/** Each vendor SDK against the Vercel AI SDK and a bare fetch, and what the router adds (bench/ai-providers.ts, its own process). */
function runProviders(): void {
  console.log("[providers] bench/ai-providers.ts ...");
  const r = spawnSync(process.execPath, ["--import", "tsx", path.join("bench", "ai-providers.ts")], {
    cwd: process.cwd(),
    env: process.env,
    stdio: "inherit",
    timeout: 900_000,
  });
  if (r.status !== 0) console.log(`[providers] failed (exit ${r.status})`);
}

/**
 * What metered pricing adds over flat (1 KB and 100 KB prompts), what an API key on /v1 adds over a
 * session on /api/ai/chat, and the back-to-back row
 * (bench/ai-overhead.ts, its own process and servers of this build), in its own section.
 */
function runOverhead(): void {
  console.log("[overhead] bench/ai-overhead.ts ...");
  const r = spawnSync(process.execPath, ["--import", "tsx", path.join("bench", "ai-overhead.ts")], {
    cwd: process.cwd(),
    env: { ...process.env, BENCH_SKIP_BUILD: "true" },
    stdio: "inherit",
    timeout: 1_200_000,
  });
  if (r.status !== 0) console.log(`[overhead] failed (exit ${r.status})`);
}

/**
 * The same charged chat with metrics and with tracing on (bench/observability.ts, its own process:
 * two servers of this build, interleaved): what observability adds, in its own section.
 */
function runObservability(): void {
  console.log("[observability] bench/observability.ts ...");
  const r = spawnSync(process.execPath, ["--import", "tsx", path.join("bench", "observability.ts")], {
    cwd: process.cwd(),
    env: { ...process.env, BENCH_SKIP_BUILD: "true", BENCH_ROUNDS: String(ROUNDS), BENCH_LATENCY_N: String(LATENCY_N) },
    stdio: "inherit",
    timeout: 600_000,
  });
  if (r.status !== 0) console.log(`[observability] failed (exit ${r.status})`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
