import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * Builds and starts the real production server for the e2e suite, the browser suite, the deploy
 * suite and the benchmarks (each with its own build directory, NEXT_DIST_DIR): `next build` plus
 * scripts/standalone-prepare.mjs (as `npm run build` does), then the standalone server
 * (`node <distDir>/standalone/server.js`, as `npm start` and the container do), so the PID we hold
 * is the server's own and it is stopped by that PID.
 */
const ROOT = process.cwd();
const NEXT_BIN = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");
const SOURCES = [
  "app",
  "components",
  "lib",
  "knowledge",
  "proxy.ts",
  "instrumentation.ts",
  "next.config.ts",
  "postcss.config.mjs",
  "package.json",
  "public",
  "prisma",
  "scripts/standalone-prepare.mjs",
  "scripts/db-migrate.ts",
  "scripts/preflight.ts",
  "scripts/admin-sign-in-link.ts",
];

function newestSourceMtime(): number {
  let newest = 0;
  const visit = (p: string) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const name of readdirSync(p)) if (name !== "node_modules") visit(path.join(p, name));
    } else newest = Math.max(newest, st.mtimeMs);
  };
  for (const s of SOURCES) visit(path.join(ROOT, s));
  return newest;
}

export interface BuildOptions {
  /** Build directory (next.config.ts reads NEXT_DIST_DIR); default .next. */
  distDir?: string;
  /** Reuse an existing build as is. */
  skip?: boolean;
  /** Extra environment for `next build`. */
  env?: Record<string, string>;
  /** Prefix of the progress lines. */
  label?: string;
}

/** True when the build directory holds a production build newer than every source file. */
export function buildIsFresh(distDir = ".next"): boolean {
  const id = path.join(ROOT, distDir, "BUILD_ID");
  return existsSync(id) && statSync(id).mtimeMs > newestSourceMtime();
}

/**
 * Runs `next build` into `distDir` unless a build newer than every source file is there (or `skip`
 * and any build is there). `next build` adds its dist dir's types to tsconfig.json; the repository's
 * file is put back as it was.
 */
export function ensureBuild(log: (line: string) => void = console.log, options: BuildOptions = {}): void {
  const distDir = options.distDir ?? ".next";
  const label = options.label ?? "e2e";
  const skip = options.skip ?? (process.env.E2E_SKIP_BUILD === "true" || process.env.E2E_SKIP_BUILD === "1");
  if (existsSync(path.join(ROOT, distDir, "BUILD_ID")) && (skip || buildIsFresh(distDir))) {
    log(`${label}: reusing the build in ${distDir}${skip ? " (skip requested)" : ""}`);
    return;
  }
  log(`${label}: next build into ${distDir} ...`);
  const started = Date.now();
  const tsconfig = path.join(ROOT, "tsconfig.json");
  const tsconfigBefore = existsSync(tsconfig) ? readFileSync(tsconfig, "utf8") : null;
  // `npm run typecheck` covers the same tree in CI; the suites' builds skip the build's own check.
  const buildEnv: NodeJS.ProcessEnv = {
    ...process.env,
    BUILD_SKIP_TYPECHECK: "true",
    ...options.env,
    NEXT_DIST_DIR: distDir,
    NEXT_TELEMETRY_DISABLED: "1",
    NODE_ENV: "production",
  };
  for (const [what, args] of [
    ["next build", [NEXT_BIN, "build"]],
    ["standalone-prepare", [path.join(ROOT, "scripts", "standalone-prepare.mjs")]],
  ] as const) {
    const result = spawnSync(process.execPath, args, {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: buildEnv,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      timeout: 600_000,
    });
    if (tsconfigBefore !== null && readFileSync(tsconfig, "utf8") !== tsconfigBefore) writeFileSync(tsconfig, tsconfigBefore);
    if (result.status !== 0) {
      throw new Error(
        `${what} failed (exit ${result.status}):\n${(result.stdout ?? "").slice(-4000)}\n${(result.stderr ?? "").slice(-4000)}`,
      );
    }
  }
  log(`${label}: built in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** The identity webhook secret of the e2e server (svix whsec_ form). */
export const E2E_IDENTITY_SECRET = "whsec_ZTJlLWlkZW50aXR5LXNlY3JldC0wMTIzNDU2Nzg5YWI=";

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface RunningServer {
  baseUrl: string;
  port: number;
  pid: number;
  dataDir: string;
  logFile: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** The standalone server of a build directory. */
export function standaloneDir(distDir = ".next"): string {
  return path.join(ROOT, distDir, "standalone");
}

/**
 * Starts the standalone server on PORT (env: proves PORT is honoured) with its own DATA_DIR. The
 * build directory is env.NEXT_DIST_DIR (default .next); `options.serverDir` runs a copy of the
 * standalone folder elsewhere (the deploy suite: a directory with no node_modules beside it).
 */
export async function startServer(
  env: Record<string, string | undefined> = {},
  options: {
    readyTimeoutMs?: number;
    dataDirPrefix?: string;
    serverDir?: string;
    dataDir?: string;
    nodeArgs?: string[];
    /**
     * Starts something else than `node server.js` (the deploy suite's container mode: the image's own
     * command): given the server's environment and data directory, the process to spawn. SIGTERM to
     * that process must stop the server.
     */
    launch?: (serverEnv: Record<string, string>, dataDir: string) => { command: string; args: string[]; env: NodeJS.ProcessEnv };
  } = {},
): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), options.dataDirPrefix ?? "svc-e2e-"));
  const logFile = path.join(dataDir, "server.log");
  const out = openSync(logFile, "a");
  const baseUrl = `http://127.0.0.1:${port}`;
  // Only the basics of the parent environment: the server's configuration is exactly what is given here.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => ["PATH", "HOME", "LANG", "TZ", "TMPDIR", "USER", "SHELL"].includes(k)),
  );
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({
    ...inherited,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    PORT: String(port),
    HOSTNAME: "127.0.0.1",
    DATA_DIR: dataDir,
    NEXTAUTH_URL: baseUrl,
    NEXTAUTH_SECRET: "e2e-nextauth-secret-0123456789abcdef",
    CRON_SECRET: "e2e-cron-secret",
    // The test servers sign in by the development sign-in, in production on purpose.
    AUTH_DEV_LOGIN: "true",
    AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION: "true",
    // Production on the embedded database is refused unless said explicitly (a suite with
    // DATABASE_URL overrides this with undefined).
    ALLOW_EMBEDDED_DATABASE: "true",
    // Production needs an AI provider, or the offline one on purpose: offline unless a key is given.
    AI_OFFLINE: env.OPENAI_API_KEY || env.ANTHROPIC_API_KEY || env.GEMINI_API_KEY || env.AI_PROVIDERS ? undefined : "true",
    // Production needs a payment provider: the checkout simulator unless Lemon Squeezy is given or payments are off.
    PAYMENT_SIMULATOR_ENABLED: env.LEMONSQUEEZY_API_KEY || env.PAYMENTS_ENABLED === "false" ? undefined : "true",
    PAYMENT_WEBHOOK_SECRET: "e2e-payment-webhook-secret",
    RAG_INDEX_ON_START: "false",
    LOG_LEVEL: "warn",
    ...env,
    // E2E_GATEWAY_LANE=false runs a suite with the hot AI routes answered by Next's router instead of
    // the gateway lane (lib/server/gateway-lane.ts), whatever the suite's own settings: CI runs the
    // AI suites both ways (npm run test:e2e:next-router).
    ...(process.env.E2E_GATEWAY_LANE ? { GATEWAY_LANE: process.env.E2E_GATEWAY_LANE } : {}),
  })) {
    if (v !== undefined) childEnv[k] = v;
  }
  const serverDir = options.serverDir ?? standaloneDir(env.NEXT_DIST_DIR ?? ".next");
  const launched = options.launch?.(childEnv, dataDir) ?? {
    command: process.execPath,
    args: [...(options.nodeArgs ?? []), path.join(serverDir, "server.js")],
    env: childEnv as NodeJS.ProcessEnv,
  };
  const child = spawn(launched.command, launched.args, {
    cwd: options.launch ? ROOT : serverDir,
    env: launched.env,
    stdio: ["ignore", out, out],
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    process.kill(child.pid as number, "SIGTERM");
    const timer = setTimeout(() => child.exitCode === null && process.kill(child.pid as number, "SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`server exited with ${child.exitCode} before it was ready:\n${readFileSync(logFile, "utf8").slice(-4000)}`);
    }
    try {
      const res = await fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(5000) });
      if (res.status === 200) {
        return { baseUrl, port, pid: child.pid as number, dataDir, logFile, child, stop };
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`server not healthy within the timeout:\n${readFileSync(logFile, "utf8").slice(-4000)}`);
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
