/**
 * The standalone server's first step (bundled by scripts/standalone-prepare.mjs into
 * <standalone>/preflight.cjs and run by its server.js before Next.js starts):
 *   1. reads the .env files beside the server as Next.js would, then validates the environment: a
 *      configuration that cannot run stops the process with the list of every problem, before
 *      anything is listening or "Ready" is printed (instrumentation.ts repeats the check for
 *      `next dev`);
 *   2. tells the app each request's socket peer (lib/http/client-ip.ts), in a header only this
 *      process can write: Next.js passes a client-written X-Forwarded-For on as it is;
 *   3. answers the hot AI routes through the gateway lane (lib/server/gateway-lane.ts) before Next's
 *      router, unless GATEWAY_LANE=false;
 *   4. stops gracefully on SIGTERM / SIGINT (a supervisor, `docker stop`, `npm start` passing the
 *      signal on): no new connections, the requests in flight finish (up to SHUTDOWN_TIMEOUT_MS),
 *      then the app's own shutdown (settlements written, database pool closed), then exit 0.
 */
import cluster from "node:cluster";
import { randomBytes } from "node:crypto";
import { loadEnvConfig } from "@next/env";
import { configurationProblems, describeProblems } from "@/lib/server/check-configuration";
import { appStarted, runAppShutdown } from "@/lib/server/app-shutdown";
import { PEER_HEADER, PEER_TOKEN_VARIABLE } from "@/lib/http/client-ip";
import { createGatewayLane, gatewayLaneEnabled, type GatewayLane } from "@/lib/server/gateway-lane";
import { interceptRequestListeners, loadRouteHandler } from "@/lib/server/next-internals";
import { runPrimary, serverProcessCount } from "@/lib/server/server-processes";
import { answerMetricsRequests, serveMetricsToWorkers } from "@/lib/metrics/process-messages";
import { aggregateMetrics, metricsAsJSON } from "@/lib/metrics";

loadEnvConfig(__dirname, false, { info: () => {}, error: console.error });
const problems = configurationProblems(process.env);
if (problems.length > 0) {
  console.error(describeProblems(problems));
  process.exit(1);
}

const SHUTDOWN_TIMEOUT_MS = Number(process.env.SHUTDOWN_TIMEOUT_MS) > 0 ? Number(process.env.SHUTDOWN_TIMEOUT_MS) : 25_000;
function logLine(level: "info" | "error", msg: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ level, time: new Date().toISOString(), msg, ...fields })}\n`);
}

// WEB_CONCURRENCY (lib/server/server-processes.ts): the primary forks the server processes and serves
// nothing itself; server.js starts Next.js only where this says so.
const processes = serverProcessCount(process.env);
export const startsNext = !(cluster.isPrimary && processes.count > 1);
if (processes.ignored && cluster.isPrimary) logLine("info", processes.ignored, { WEB_CONCURRENCY: process.env.WEB_CONCURRENCY });
if (startsNext) startServerProcess();
else {
  runPrimary({ count: processes.count, shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS, logLine });
  serveMetricsToWorkers(aggregateMetrics);
}

function startServerProcess(): void {
  answerMetricsRequests(metricsAsJSON);
  // Next's own signal handling would exit as soon as its server closed; ours also drains the app.
  process.env.NEXT_MANUAL_SIG_HANDLE = "true";
  let stopping = false;
  async function stop(signal: NodeJS.Signals): Promise<void> {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    logLine("info", "shutting down: no new requests; finishing the ones in flight", { signal, deadlineMs: SHUTDOWN_TIMEOUT_MS });
    setTimeout(() => {
      logLine("error", "shutdown deadline passed; exiting with requests still open", { signal });
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS).unref();
    await Promise.all(intercepted.servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    await runAppShutdown().catch((error: unknown) => logLine("error", "app shutdown failed", { error: String(error) }));
    logLine("info", "stopped", { signal, ms: Date.now() - started });
    process.exit(0);
  }

  const token = randomBytes(24).toString("hex");
  process.env[PEER_TOKEN_VARIABLE] = token;

  const lane: GatewayLane | null = gatewayLaneEnabled()
    ? createGatewayLane({
        loadHandler: loadRouteHandler,
        ready: appStarted,
        hostname: process.env.HOSTNAME || "0.0.0.0",
        logLine,
      })
    : null;

  // Next's request listener, behind the peer header and the lane (lib/server/next-internals.ts): every
  // request carries its real peer, whatever the client sent, and a laned route never reaches Next's router.
  const intercepted = interceptRequestListeners((req, res, next) => {
    req.headers[PEER_HEADER] = `${token} ${req.socket.remoteAddress ?? ""}`;
    if (!lane?.serve(req, res)) void next(req, res);
  });
  const noticeWhenStarted = setInterval(() => {
    if (!appStarted()) return;
    clearInterval(noticeWhenStarted);
    // Next no longer reaching node:http through http.createServer: neither the peer header nor the lane
    // sees its requests. Said once, loudly.
    if (intercepted.servers.length === 0) {
      logLine(
        "error",
        "Next.js internals changed: its server was not created through http.createServer; the gateway lane and the client address header are off",
      );
    }
  }, 200);
  noticeWhenStarted.unref();

  // Registered once the servers' list exists (stop closes them).
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}
