/**
 * The standalone server's first step (bundled by scripts/standalone-prepare.mjs into
 * <standalone>/preflight.cjs and run by its server.js before Next.js starts):
 *   1. reads the .env files beside the server as Next.js would, then validates the environment: a
 *      configuration that cannot run stops the process with the list of every problem, before
 *      anything is listening or "Ready" is printed (instrumentation.ts repeats the check for
 *      `next dev`);
 *   2. tells the app each request's socket peer (lib/http/client-ip.ts), in a header only this
 *      process can write: Next.js passes a client-written X-Forwarded-For on as it is.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import { loadEnvConfig } from "@next/env";
import { EnvError, parseEnv } from "@/lib/config/env";
import { PEER_HEADER, PEER_TOKEN_VARIABLE } from "@/lib/http/client-ip";

loadEnvConfig(__dirname, false, { info: () => {}, error: console.error });
try {
  parseEnv(process.env);
} catch (error) {
  if (!(error instanceof EnvError)) throw error;
  console.error(`${error.message}\nFix these settings (see .env.example) and start again.`);
  process.exit(1);
}

const token = randomBytes(24).toString("hex");
process.env[PEER_TOKEN_VARIABLE] = token;
const createServer = http.createServer;
http.createServer = function (this: unknown, ...args: unknown[]) {
  const server = (createServer as (...a: unknown[]) => http.Server).apply(this, args);
  // Before Next's own listener: every request carries its real peer, whatever the client sent.
  server.prependListener("request", (req: http.IncomingMessage) => {
    req.headers[PEER_HEADER] = `${token} ${req.socket.remoteAddress ?? ""}`;
  });
  return server;
} as typeof http.createServer;
