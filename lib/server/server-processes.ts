import cluster, { type Worker } from "node:cluster";

/**
 * WEB_CONCURRENCY=N (the standalone server, on PostgreSQL): N server processes on one machine. The
 * first process (the primary) serves nothing: it forks N workers, each a whole server (its own pool,
 * gateway lane, instance row, settlement journal and drain), which share the listening port through
 * node:cluster; it forwards SIGTERM/SIGINT to them, waits for their drains and exits with their result,
 * replaces a worker that dies, and adds up every worker's metrics for GET /api/metrics
 * (lib/metrics/process-messages.ts). More than MAX_EXITS_PER_MINUTE unexpected exits in a minute mean a
 * server that cannot run: the primary stops the rest and exits 1, so the supervisor sees the failure.
 * The embedded database belongs to one process: there WEB_CONCURRENCY is ignored, with a log line.
 */
export const MAX_EXITS_PER_MINUTE = 5;

type LogLine = (level: "info" | "error", msg: string, fields?: Record<string, unknown>) => void;

/** How many server processes this environment asks for, and why it gets one when it asked for more. */
export function serverProcessCount(env: Record<string, string | undefined>): { count: number; ignored?: string } {
  const asked = Number(env.WEB_CONCURRENCY ?? "");
  const count = Number.isInteger(asked) && asked > 1 ? asked : 1;
  if (count > 1 && !env.DATABASE_URL)
    return { count: 1, ignored: "WEB_CONCURRENCY is ignored on the embedded database: one process owns its data directory" };
  return { count };
}

/** Exits within the last minute, with the one just now, and whether they pass the limit. */
export function tooManyExits(exits: number[], now: number): boolean {
  while (exits.length > 0 && exits[0] <= now - 60_000) exits.shift();
  exits.push(now);
  return exits.length > MAX_EXITS_PER_MINUTE;
}

/** The primary's whole life: forks, replaces, forwards signals, exits with the workers' result. */
export function runPrimary(options: { count: number; shutdownTimeoutMs: number; logLine: LogLine }): void {
  const { count, shutdownTimeoutMs, logLine } = options;
  let stopping: NodeJS.Signals | null = null;
  let failed = false;
  const exits: number[] = [];

  const fork = (): Worker => cluster.fork();
  logLine("info", "starting server processes", { processes: count, primaryPid: process.pid });
  for (let i = 0; i < count; i++) fork();

  cluster.on("exit", (worker: Worker, code: number | null, signal: string | null) => {
    const left = Object.keys(cluster.workers ?? {}).length;
    if (stopping) {
      if (code !== 0) failed = true;
      if (left === 0) {
        logLine("info", "every server process stopped", { signal: stopping, failed });
        process.exit(failed ? 1 : 0);
      }
      return;
    }
    logLine("error", "a server process exited; starting another", { pid: worker.process.pid, code, signal });
    if (tooManyExits(exits, Date.now())) {
      logLine("error", `more than ${MAX_EXITS_PER_MINUTE} server processes exited within a minute; stopping`, {});
      failed = true;
      stopAll("SIGTERM");
      if (left === 0) process.exit(1);
      return;
    }
    fork();
  });

  function stopAll(signal: NodeJS.Signals): void {
    if (stopping) return;
    stopping = signal;
    // Each worker drains itself (scripts/preflight.ts) within SHUTDOWN_TIMEOUT_MS; this is the backstop.
    setTimeout(() => {
      logLine("error", "server processes still running past the shutdown deadline; exiting", { signal });
      process.exit(1);
    }, shutdownTimeoutMs + 5_000).unref();
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  }
  process.on("SIGTERM", () => stopAll("SIGTERM"));
  process.on("SIGINT", () => stopAll("SIGINT"));
}
