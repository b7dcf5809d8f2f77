/**
 * The standalone server's first step (bundled by scripts/standalone-prepare.mjs into
 * <standalone>/preflight.cjs and run by its server.js before Next.js starts):
 *   1. reads the .env files beside the server as Next.js would, then validates the environment: a
 *      configuration that cannot run stops the process with the list of every problem, before
 *      anything is listening or "Ready" is printed (instrumentation.ts repeats the check for
 *      `next dev`);
 *   2. tells the app each request's socket peer (lib/http/client-ip.ts), in a header only this
 *      process can write: Next.js passes a client-written X-Forwarded-For on as it is;
 *   3. stops gracefully on SIGTERM / SIGINT (a supervisor, `docker stop`, `npm start` passing the
 *      signal on): no new connections, the requests in flight finish (up to SHUTDOWN_TIMEOUT_MS),
 *      then the app's own shutdown (settlements written, database pool closed), then exit 0.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import { loadEnvConfig } from "@next/env";
import { configurationProblems, describeProblems } from "@/lib/server/check-configuration";
import { PEER_HEADER, PEER_TOKEN_VARIABLE } from "@/lib/http/client-ip";

loadEnvConfig(__dirname, false, { info: () => {}, error: console.error });
const problems = configurationProblems(process.env);
if (problems.length > 0) {
  console.error(describeProblems(problems));
  process.exit(1);
}

// Next's own signal handling would exit as soon as its server closed; ours also drains the app.
process.env.NEXT_MANUAL_SIG_HANDLE = "true";
const servers: http.Server[] = [];
const SHUTDOWN_TIMEOUT_MS = Number(process.env.SHUTDOWN_TIMEOUT_MS) > 0 ? Number(process.env.SHUTDOWN_TIMEOUT_MS) : 25_000;
let stopping = false;
function logLine(level: "info" | "error", msg: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ level, time: new Date().toISOString(), msg, ...fields })}\n`);
}
async function stop(signal: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  const started = Date.now();
  logLine("info", "shutting down: no new requests; finishing the ones in flight", { signal, deadlineMs: SHUTDOWN_TIMEOUT_MS });
  setTimeout(() => {
    logLine("error", "shutdown deadline passed; exiting with requests still open", { signal });
    process.exit(1);
  }, SHUTDOWN_TIMEOUT_MS).unref();
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  const appShutdown = (globalThis as { __appShutdown?: () => Promise<void> }).__appShutdown;
  if (appShutdown) await appShutdown().catch((error: unknown) => logLine("error", "app shutdown failed", { error: String(error) }));
  logLine("info", "stopped", { signal, ms: Date.now() - started });
  process.exit(0);
}
process.on("SIGTERM", () => void stop("SIGTERM"));
process.on("SIGINT", () => void stop("SIGINT"));

const token = randomBytes(24).toString("hex");
process.env[PEER_TOKEN_VARIABLE] = token;
const createServer = http.createServer;
http.createServer = function (this: unknown, ...args: unknown[]) {
  const server = (createServer as (...a: unknown[]) => http.Server).apply(this, args);
  servers.push(server);
  // Before Next's own listener: every request carries its real peer, whatever the client sent.
  server.prependListener("request", (req: http.IncomingMessage) => {
    req.headers[PEER_HEADER] = `${token} ${req.socket.remoteAddress ?? ""}`;
  });
  return server;
} as typeof http.createServer;
