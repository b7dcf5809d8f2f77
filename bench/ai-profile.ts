/**
 * npm run bench:ai:profile (bench/ai-profile.ts) — where our server's CPU goes under the charged-chat
 * load: `next start` of the bench build runs with `--cpu-prof` while BENCH_CONCURRENCY (16) workers
 * send POST /api/ai/chat (each request really charged) for BENCH_PROFILE_SECONDS (20); the profile
 * of the server's main thread, its samples during that load only (not start-up, sign-ins, warm-up), is then mapped through the build's source maps and its self time summed
 * by category (Next.js, the database, fetch/undici, web streams, our lib/ folders, ...). Prints a
 * table (ms of CPU per chat request and share of busy time) and the top functions, and writes the raw
 * summary to bench/results/ai-profile-<time>.json. BENCH_PROFILE_DB=postgres profiles on a fresh
 * PostgreSQL database (TEST_DATABASE_URL) instead of the embedded one, and adds PostgreSQL's side:
 * its CPU per request (when it runs on this machine) and, where the server loads pg_stat_statements
 * (`shared_preload_libraries`), each statement's cost per request, the database functions' own
 * statements included (BENCH_PROFILE_STATEMENTS rows, 15); BENCH_PROFILE_KEEP=<file> keeps
 * the raw .cpuprofile (open it in Chrome DevTools or speedscope).
 *
 * BENCH_PROFILE_ROUTE picks the load: `chat` (the default, above), `status` (GET /api/user/status with
 * a session: the plain authenticated read a dashboard polls; many users and client addresses so the
 * `api` rate limits never refuse one), `usage` (GET /api/ai/usage, the same users), `noop` (GET
 * /api/bench/noop), `models` (GET /v1/models with an API key) or `streams` (bursts of BENCH_STREAMS (200)
 * concurrent POST /api/ai/stream over 25 users, the stub pacing its chunks 10 ms apart, each burst
 * followed by the same burst straight from the stub: the time to first token of a burst of stream
 * starts, ours ÷ direct, besides the profile; requests = streams). Besides the profile, the server's whole CPU per request from /proc (all threads).
 * BENCH_PROFILE_SYSCALLS=true counts the server's system calls per request instead (strace -c -f on
 * the measured load, no CPU profile): on a machine where a system call is dear, the calls a request
 * makes (socket writes and reads, the database's round trips, timers) are a large share of its CPU.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureBenchBuild, freshPostgres, signInUsers, startBenchServer, startHelper } from "./lib/ai-server";
import { keepAliveAgent, median, runPostLoad, timedStream, type PostLoadResult } from "./lib/ai-http";
import { cpuSeconds } from "./lib/process-cpu";
import { fmt } from "./lib/report";
import { directStreamBody, streamBody } from "./lib/stream-request";
import { postmasterPid, statementCosts, type StatementCost } from "./lib/postgres-side";
import { removeDir } from "@/tests/e2e/server";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SECONDS = Number(process.env.BENCH_PROFILE_SECONDS ?? 20);
const DB = process.env.BENCH_PROFILE_DB === "postgres" ? "postgres" : "embedded";
const ROUTE = (process.env.BENCH_PROFILE_ROUTE ?? "chat") as "chat" | "status" | "usage" | "noop" | "models" | "streams";
if (!["chat", "status", "usage", "noop", "models", "streams"].includes(ROUTE))
  throw new Error(`BENCH_PROFILE_ROUTE: chat, status, usage, noop, models or streams, not ${ROUTE}`);
/** The `api` category allows 100 requests per user and 200 per address an hour: the status load spreads over this many of each. */
const STATUS_USERS = Number(process.env.BENCH_PROFILE_USERS ?? 240);
const SYSCALLS = process.env.BENCH_PROFILE_SYSCALLS === "true";
/** The stream-start burst: 8 streams per user, the default cap on a user's AI requests in progress. */
const STREAMS = Number(process.env.BENCH_STREAMS ?? 200);
const STREAM_USERS = Math.ceil(STREAMS / 8);

/**
 * Bursts of STREAMS concurrent streams for `ms`: ours, then the same burst straight from the stub
 * (the server idle meanwhile). Every stream must arrive whole; returns each burst's TTFT p50.
 */
async function streamBursts(baseUrl: string, stubUrl: string, cookies: string[], ms: number) {
  const ours: number[] = [];
  const direct: number[] = [];
  let requests = 0;
  const t0 = performance.now();
  const body = streamBody();
  const directBody = directStreamBody();
  const firstTokens = (streams: { status: number; chunkAt: number[]; errors: string[] }[], label: string) => {
    const bad = streams.find((s) => s.status !== 200 || s.errors.length > 0 || s.chunkAt.length === 0);
    if (bad) throw new Error(`${label} stream: status ${bad.status}, ${bad.errors.join("; ")}`);
    return median(streams.map((s) => s.chunkAt[0]));
  };
  while (performance.now() - t0 < ms) {
    const agent = keepAliveAgent(STREAMS);
    const burst = await Promise.all(
      Array.from({ length: STREAMS }, (_, i) =>
        timedStream(agent, `${baseUrl}/api/ai/stream`, { cookie: cookies[i % cookies.length] }, body, "gateway", 120_000),
      ),
    );
    agent.destroy();
    ours.push(firstTokens(burst, "our"));
    requests += STREAMS;
    const directAgent = keepAliveAgent(STREAMS);
    const straight = await Promise.all(
      Array.from({ length: STREAMS }, () =>
        timedStream(directAgent, `${stubUrl}/chat/completions`, { authorization: "Bearer x" }, directBody, "openai"),
      ),
    );
    directAgent.destroy();
    direct.push(firstTokens(straight, "direct"));
  }
  const seconds = (performance.now() - t0) / 1000;
  return { requests, seconds, rps: requests / seconds, errors: 0, statuses: {}, latencies: [], ours, direct };
}

/** strace -c -f attached to the server while `work` runs: the calls of every thread, per request. */
async function countSyscalls<T extends { requests: number }>(pid: number, work: () => Promise<T>): Promise<T> {
  const out = path.join(mkdtempSync(path.join(tmpdir(), "ai-strace-")), "strace.txt");
  const strace = spawn("strace", ["-c", "-f", "-q", "-o", out, "-p", String(pid)], { stdio: "ignore" });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const result = await work();
  const exited = new Promise((resolve) => strace.once("exit", resolve));
  strace.kill("SIGINT");
  await exited;
  console.log(`\nsystem calls of the server per ${ROUTE} request (strace -c -f, ${result.requests} requests):\n`);
  console.log("| system call | calls per request | seconds (strace) |\n|---|---|---|");
  let total = 0;
  for (const line of readFileSync(out, "utf8").split("\n")) {
    const m = /^\s*[\d.]+\s+([\d.]+)\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$/.exec(line);
    if (!m || m[3] === "total") continue;
    const calls = Number(m[2]) / Math.max(1, result.requests);
    total += calls;
    if (calls >= 0.01) console.log(`| ${m[3]} | ${fmt(calls, 2)} | ${m[1]} |`);
  }
  console.log(`| (all) | ${fmt(total, 2)} | |`);
  removeDir(path.dirname(out));
  return result;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const maps = new Map<string, SourceMap | null>();
function sourceMapOf(url: string): SourceMap | null {
  if (!url.startsWith("file://")) return null;
  if (maps.has(url)) return maps.get(url) ?? null;
  let map: SourceMap | null = null;
  // The standalone server's chunks are copies of the build's, whose source maps stay in the build.
  const file = fileURLToPath(url);
  for (const candidate of [`${file}.map`, `${file.replace(/\/standalone\/[^/]+\//, "/")}.map`]) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(candidate, "utf8")));
      break;
    } catch {
      map = null;
    }
  }
  maps.set(url, map);
  return map;
}

/** The original source of a profile frame (through the chunk's source map when there is one). */
function originalSource(frame: ProfileNode["callFrame"]): string {
  const map = sourceMapOf(frame.url);
  if (map) {
    const entry = map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string };
    if (entry?.originalSource) return entry.originalSource;
  }
  return frame.url || frame.functionName;
}

const CATEGORIES: Array<[RegExp, string]> = [
  [/^\(idle\)$/, "(idle)"],
  [/^\(garbage collector\)$/, "garbage collection"],
  [/^\(program\)$/, "(program: native code, compilation)"],
  [/@electric-sql\/pglite|pglite-prisma-adapter|^wasm:\/\//, "embedded database (PGlite, WebAssembly)"],
  [/node_modules\/(pg|pg-protocol|pg-pool|pg-types|pgpass)\//, "PostgreSQL driver (pg)"],
  [/@prisma\/|generated\/prisma/, "Prisma"],
  [/node_modules\/next\/|next\/dist\//, "Next.js"],
  [/node_modules\/react|react-dom/, "React"],
  [/node:internal\/deps\/undici|undici/, "fetch (undici)"],
  [/node:internal\/webstreams|webstreams/, "web streams"],
  [/node_modules\/openai\//, "openai SDK"],
  [/node_modules\/zod\//, "zod"],
  [/node_modules\/(jose|next-auth|@panva|openid-client)\//, "session (next-auth, jose)"],
  [/node_modules\/pino|sonic-boom|thread-stream/, "logs (pino)"],
  [/node_modules\/prom-client|tdigest|bintrees/, "metrics (prom-client)"],
  [/@opentelemetry|@vercel\/otel/, "tracing"],
  [/(?:\[project\]\/|\.\.\/)lib\/([a-z-]+)/, "lib/$1"],
  [/(?:\[project\]\/|\.\.\/)app\//, "app routes"],
  [/^node:(internal\/)?(http|_http|net|stream|internal\/streams|internal\/http|internal\/net|dns|tls)/, "node http, net, streams"],
  [/^node:/, "node internals (other)"],
];

function categoryOf(source: string): string {
  for (const [pattern, name] of CATEGORIES) {
    const m = pattern.exec(source);
    if (m) return name.replace("$1", m[1] ?? "");
  }
  return "other";
}

export interface ProfileSummary {
  database: string;
  requests: number;
  seconds: number;
  busyMs: number;
  categories: Array<{ category: string; ms: number; msPerRequest: number; share: number }>;
  top: Array<{ fn: string; source: string; ms: number; msPerRequest: number }>;
}

/**
 * Self time by category and function. With `window` (microseconds of the monotonic clock V8's samples
 * and process.hrtime share), only the samples inside it count: the measured load, without start-up,
 * sign-ins and warm-up.
 */
export function summarize(profile: Profile, requests: number, database: string, window?: { from: number; to: number }): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  /**
   * What a sample is spent for: native frames and Node's internals (fstat, writev, a wasm call, a
   * stream write) count for the nearest caller outside them (the database writing its files, the
   * client reading its socket); a stack made only of Node internals counts for the innermost one.
   */
  const sourceFor = (node: ProfileNode): string => {
    let innermost = "";
    for (let current: ProfileNode | undefined = node; current; current = byId.get(parentOf.get(current.id) ?? -1)) {
      if (!current.callFrame.url) continue;
      const source = originalSource(current.callFrame);
      if (!innermost) innermost = source;
      if (!source.startsWith("node:")) return source;
    }
    return innermost || node.callFrame.functionName || "(native)";
  };
  const self = new Map<number, number>();
  let at = profile.startTime;
  let seconds = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (window && (at < window.from || at > window.to)) return;
    seconds += delta / 1e6;
    self.set(id, (self.get(id) ?? 0) + delta / 1000);
  });
  const categories = new Map<string, number>();
  const functions = new Map<string, { fn: string; source: string; ms: number }>();
  for (const [id, ms] of self) {
    const node = byId.get(id);
    if (!node) continue;
    const fn = node.callFrame.functionName;
    const special = ["(idle)", "(garbage collector)", "(program)"].includes(fn);
    const source = special ? fn : sourceFor(node);
    const category = categoryOf(special ? fn : source);
    categories.set(category, (categories.get(category) ?? 0) + ms);
    const own = special ? fn : node.callFrame.url ? originalSource(node.callFrame) : source;
    const key = `${fn || "(anonymous)"} ${own}`;
    const f = functions.get(key) ?? {
      fn: fn || "(anonymous)",
      source: own
        .replace(/^.*\[project\]\//, "")
        .replace(/^(\.\.\/)+/, "")
        .replace(/^file:\/\/.*node_modules\//, "node_modules/"),
      ms: 0,
    };
    f.ms += ms;
    functions.set(key, f);
  }
  const busyMs = [...categories].filter(([c]) => c !== "(idle)").reduce((a, [, ms]) => a + ms, 0);
  return {
    database,
    requests,
    seconds,
    busyMs,
    categories: [...categories]
      .filter(([c]) => c !== "(idle)")
      .sort((a, b) => b[1] - a[1])
      .map(([category, ms]) => ({ category, ms, msPerRequest: ms / requests, share: ms / busyMs })),
    top: [...functions.values()]
      .filter((f) => !["(idle)"].includes(f.fn))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, Math.max(25, Number(process.env.BENCH_PROFILE_TOP ?? 25)))
      .map((f) => ({ ...f, msPerRequest: f.ms / requests })),
  };
}

/**
 * The load's statements inside PostgreSQL, dearest first: those the server sent and those the
 * database functions and triggers ran for them (pg_stat_statements' execution time: wall time, so
 * lock waits and a backend preempted on a busy machine count too; read the shares, not the sum).
 */
function printStatements(rows: StatementCost[], requests: number): void {
  console.log("\n| Statement (PostgreSQL, dearest first) | sent by | calls per request | ms per request |\n|---|---|---|---|");
  for (const r of rows.slice(0, Number(process.env.BENCH_PROFILE_STATEMENTS ?? 15)))
    console.log(
      `| \`${r.query.slice(0, 110).replace(/\|/g, "\\|")}${r.query.length > 110 ? "…" : ""}\` | ${r.topLevel ? "the server" : "a function"} | ${fmt(r.calls / requests, 2)} | ${fmt(r.totalMs / requests, 3)} |`,
    );
}

async function main(): Promise<void> {
  ensureBenchBuild();
  const stub = await startHelper<{ url: string }>("ai-stub-process.ts");
  if (ROUTE === "streams") await stub.ask({ chunkDelayMs: 10 });
  const profileDir = mkdtempSync(path.join(tmpdir(), "ai-profile-"));
  const database = DB === "postgres" ? await freshPostgres(process.env.TEST_DATABASE_URL as string, "bench_profile") : null;
  // PostgreSQL's side: its CPU (on this machine) and each statement's cost (where pg_stat_statements is loaded).
  const postgresPid = database ? await postmasterPid(database.url) : undefined;
  const statements = database ? await statementCosts(database.url) : null;
  if (statements && "unavailable" in statements) console.log(`PostgreSQL statements: ${statements.unavailable}`);
  let statementRows: StatementCost[] = [];
  let postgresCpuMsPerRequest = NaN;
  const server = await startBenchServer(
    {
      BENCH_ROUTES: "true",
      OPENAI_API_KEY: "x",
      OPENAI_BASE_URL: stub.info.url,
      PRICING_CONFIG: JSON.stringify({ tiers: { free: { monthlyCredits: 100_000_000 } } }),
      DATABASE_URL: database?.url,
      TRUSTED_PROXY_HOPS: ROUTE === "status" ? "1" : undefined,
    },
    SYSCALLS ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, "--cpu-prof-interval=250"],
  );
  let requests = 0;
  const window = { from: 0, to: 0 };
  let cpuMsPerRequest = NaN;
  try {
    const users = ROUTE === "status" || ROUTE === "usage" ? STATUS_USERS : ROUTE === "streams" ? STREAM_USERS : CONCURRENCY;
    const cookies = await signInUsers(server.baseUrl, users, "ai-profile");
    const body = JSON.stringify({ messages: [{ role: "user", content: "Say hello to the benchmark" }] });
    let apiKey = "";
    if (ROUTE === "models") {
      const created = await fetch(`${server.baseUrl}/api/keys`, {
        method: "POST",
        headers: { cookie: cookies[0], "content-type": "application/json", origin: server.baseUrl },
        body: JSON.stringify({ name: "profile" }),
      });
      apiKey = ((await created.json()) as { secret: string }).secret;
      if (!apiKey) throw new Error(`POST /api/keys: ${created.status}`);
    }
    let sent = 0;
    const target = {
      chat: { path: "/api/ai/chat", body, headers: (w: number) => ({ cookie: cookies[w] }) },
      noop: { path: "/api/bench/noop", body: undefined, headers: () => ({}) },
      models: { path: "/v1/models", body: undefined, headers: () => ({ authorization: `Bearer ${apiKey}` }) },
      // Each request the next user and the next of 120 client addresses (TRUSTED_PROXY_HOPS=1).
      usage: {
        path: "/api/ai/usage",
        body: undefined,
        headers: () => ({ cookie: cookies[sent++ % users] }),
      },
      status: {
        path: "/api/user/status",
        body: undefined,
        headers: () => {
          const n = sent++;
          return { cookie: cookies[n % users], "x-forwarded-for": `10.9.${Math.floor(n / 120) % 250}.${n % 120}` };
        },
      },
    }[ROUTE === "streams" ? "chat" : ROUTE];
    const run = (maxRequests: number, maxMs: number): Promise<PostLoadResult & { ours?: number[]; direct?: number[] }> =>
      ROUTE === "streams"
        ? streamBursts(server.baseUrl, stub.info.url, cookies, maxMs)
        : runPostLoad({
            url: `${server.baseUrl}${target.path}`,
            concurrency: CONCURRENCY,
            maxRequests,
            maxMs,
            headers: target.headers,
            body: target.body,
          });
    await run(500, ROUTE === "streams" ? 1 : 10_000);
    if (statements && "reset" in statements) await statements.reset();
    const cpu0 = cpuSeconds(server.pid);
    const postgresCpu0 = postgresPid ? cpuSeconds(postgresPid, { children: true, reaped: true }) : NaN;
    const measured = () => {
      window.from = Number(process.hrtime.bigint() / 1000n);
      return run(ROUTE === "status" ? Math.min(users * 90 - 600, 10_000_000) : 10_000_000, SECONDS * 1000).finally(() => {
        window.to = Number(process.hrtime.bigint() / 1000n);
      });
    };
    const load = SYSCALLS ? await countSyscalls(server.pid, measured) : await measured();
    cpuMsPerRequest = ((cpuSeconds(server.pid) - cpu0) * 1000) / Math.max(1, load.requests);
    if (postgresPid)
      postgresCpuMsPerRequest =
        ((cpuSeconds(postgresPid, { children: true, reaped: true }) - postgresCpu0) * 1000) / Math.max(1, load.requests);
    if (statements && "read" in statements) statementRows = await statements.read();
    if (load.errors) throw new Error(`${ROUTE}: unexpected answers ${JSON.stringify(load.statuses)}`);
    requests = load.requests;
    if (load.ours && load.direct) {
      const ours = median(load.ours);
      const direct = median(load.direct);
      console.log(
        `${load.ours.length} bursts of ${STREAMS} stream starts: TTFT p50 ours ${fmt(ours, 0)} ms (bursts: ${load.ours.map((v) => fmt(v, 0)).join(", ")}), direct ${fmt(direct, 0)} ms (${load.direct.map((v) => fmt(v, 0)).join(", ")}): ${fmt(ours / direct, 1)}×`,
      );
    }
    console.log(
      `profiled load: ${load.requests} ${ROUTE} requests in ${fmt(load.seconds, 1)} s (${fmt(load.rps, 0)} req/s), errors ${load.errors}; server CPU ${fmt(cpuMsPerRequest, 3)} ms per request (/proc, every thread)${postgresPid ? `; PostgreSQL's CPU ${fmt(postgresCpuMsPerRequest, 3)} ms per request (its every process)` : ""}`,
    );
    if (statementRows.length) printStatements(statementRows, load.requests);
  } finally {
    await server.stop();
    removeDir(server.dataDir);
    await stub.stop();
    if (statements && "end" in statements) await statements.end();
    await database?.drop();
  }
  // The server's main thread wrote the largest profile (`next start` may run helper threads too).
  if (SYSCALLS) {
    removeDir(profileDir);
    return;
  }
  const files = readdirSync(profileDir).filter((f) => f.endsWith(".cpuprofile"));
  if (files.length === 0) throw new Error(`no profile in ${profileDir}`);
  const largest = files.sort((a, b) => statSync(path.join(profileDir, b)).size - statSync(path.join(profileDir, a)).size)[0];
  const summary = summarize(JSON.parse(readFileSync(path.join(profileDir, largest), "utf8")) as Profile, requests, DB, window);
  console.log(
    `\n${summary.database}: ${fmt(summary.busyMs / summary.requests, 2)} ms of main-thread CPU per ${ROUTE} request (the ${requests} requests of the measured load, busy ${fmt(summary.busyMs / 1000, 1)} s of ${fmt(summary.seconds, 1)} s)\n`,
  );
  console.log("| Category | ms per request | share of busy time |\n|---|---|---|");
  for (const c of summary.categories)
    if (c.share >= 0.005) console.log(`| ${c.category} | ${fmt(c.msPerRequest, 3)} | ${fmt(c.share * 100, 1)}% |`);
  console.log("\n| Function (self time) | source | ms per request |\n|---|---|---|");
  for (const f of summary.top.slice(0, Number(process.env.BENCH_PROFILE_TOP ?? 15)))
    console.log(`| ${f.fn} | ${f.source} | ${fmt(f.msPerRequest, 3)} |`);
  const out = path.join(process.cwd(), "bench", "results");
  mkdirSync(out, { recursive: true });
  writeFileSync(
    path.join(out, `ai-profile-${ROUTE}-${DB}-${new Date().toISOString().replace(/[:.]/g, "-")}.json`),
    JSON.stringify({ route: ROUTE, cpuMsPerRequest, postgresCpuMsPerRequest, statements: statementRows, ...summary }, null, 2),
  );
  if (process.env.BENCH_PROFILE_KEEP) writeFileSync(process.env.BENCH_PROFILE_KEEP, readFileSync(path.join(profileDir, largest)));
  removeDir(profileDir);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
