import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * The browser suite's server: `next build` (reused when newer than every source file, or with
 * BROWSER_SKIP_BUILD=true) and `next start` on a free port with its own temporary DATA_DIR, started
 * with `node node_modules/next/dist/bin/next` so the PID held is the server's, stopped by that PID.
 *
 * The server runs the production build with APP_ENV=development: the embedded default (PGlite, local
 * storage, local mailbox, local checkout simulator, offline AI provider, development sign-in), exactly
 * what a new user gets from `npm run build && npm start` with APP_ENV=development, or `npm run dev`.
 */
const ROOT = process.cwd();
const NEXT_BIN = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");
const SOURCES = ["app", "components", "lib", "middleware.ts", "instrumentation.ts", "next.config.ts", "postcss.config.mjs", "package.json", "public", "prisma"];

/** Build directory (next.config.ts reads NEXT_DIST_DIR): its own, so it never collides with the e2e build in .next. */
export const DIST_DIR = process.env.BROWSER_DIST_DIR || ".next-browser";

/**
 * Secret values the build and the server are given; the client-bundle test greps the built static
 * files for them (and for the names of every server-only setting).
 */
export const TEST_SECRETS = {
  NEXTAUTH_SECRET: "browser-nextauth-secret-7f3a9c1e5b",
  PAYMENT_WEBHOOK_SECRET: "browser-payment-webhook-secret-4d2e8b",
  IDENTITY_WEBHOOK_SECRET: "whsec_YnJvd3Nlci1pZGVudGl0eS1zZWNyZXQtOTk4OA==",
  EMAIL_WEBHOOK_SECRET: "whsec_YnJvd3Nlci1lbWFpbC1zZWNyZXQtNTU2Ng==",
  CRON_SECRET: "browser-cron-secret-2b9d71",
  DEBUG_KEY: "browser-debug-key-61c0aa",
  FILE_URL_SECRET: "browser-file-url-secret-83e5f0",
} as const;

/**
 * Secrets only the build is given (the server runs on the embedded default without them): every
 * server-side credential, so the client-bundle test can show none of them reaches the browser.
 */
export const BUILD_ONLY_SECRETS = {
  DATABASE_URL: "postgresql://browser_db_user:browser-db-password-0c4f7a@127.0.0.1:1/browser_never_used",
  OPENAI_API_KEY: "sk-browser-openai-key-5e91d3",
  RESEND_API_KEY: "re_browser_resend_key_72a0",
  S3_ACCESS_KEY_ID: "BROWSERS3ACCESSKEY4411",
  S3_SECRET_ACCESS_KEY: "browser-s3-secret-access-key-9d02",
  AUTH_GITHUB_SECRET: "browser-github-secret-3f77",
  AUTH_GOOGLE_SECRET: "browser-google-secret-18cc",
  AUTH_OIDC_SECRET: "browser-oidc-secret-a5e2",
  UPSTASH_REDIS_REST_TOKEN: "browser-upstash-token-60b9",
} as const;

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

export function ensureBuild(log: (line: string) => void = console.log): void {
  const id = path.join(ROOT, DIST_DIR, "BUILD_ID");
  const skip = process.env.BROWSER_SKIP_BUILD === "true";
  if (existsSync(id) && (skip || statSync(id).mtimeMs > newestSourceMtime())) {
    log(`browser: reusing the build in ${DIST_DIR}`);
    return;
  }
  log(`browser: next build into ${DIST_DIR} ...`);
  const started = Date.now();
  // next build adds its dist dir's types to tsconfig.json; the repository's file is put back as it was.
  const tsconfig = path.join(ROOT, "tsconfig.json");
  const tsconfigBefore = existsSync(tsconfig) ? readFileSync(tsconfig, "utf8") : null;
  const result = spawnSync(process.execPath, [NEXT_BIN, "build"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...TEST_SECRETS, ...BUILD_ONLY_SECRETS, NEXT_DIST_DIR: DIST_DIR, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: 600_000,
  });
  if (tsconfigBefore !== null && readFileSync(tsconfig, "utf8") !== tsconfigBefore) writeFileSync(tsconfig, tsconfigBefore);
  if (result.status !== 0) {
    throw new Error(`next build failed (exit ${result.status}):\n${(result.stdout ?? "").slice(-4000)}\n${(result.stderr ?? "").slice(-4000)}`);
  }
  log(`browser: built in ${Math.round((Date.now() - started) / 1000)} s`);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface RunningServer {
  baseUrl: string;
  pid: number;
  dataDir: string;
  logFile: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), "svc-browser-"));
  const logFile = path.join(dataDir, "server.log");
  const out = openSync(logFile, "a");
  const baseUrl = `http://127.0.0.1:${port}`;
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => ["PATH", "HOME", "LANG", "TZ", "TMPDIR", "USER", "SHELL"].includes(k)),
  ) as Record<string, string>;
  const child = spawn(process.execPath, [NEXT_BIN, "start", "-H", "127.0.0.1", "-p", String(port)], {
    cwd: ROOT,
    env: {
      ...inherited,
      ...TEST_SECRETS,
      NODE_ENV: "production",
      APP_ENV: "development",
      NEXT_DIST_DIR: DIST_DIR,
      NEXT_TELEMETRY_DISABLED: "1",
      DATA_DIR: dataDir,
      NEXTAUTH_URL: baseUrl,
      RAG_INDEX_ON_START: "true",
      LOG_LEVEL: "warn",
      ...env,
    },
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
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${readFileSync(logFile, "utf8").slice(-4000)}`);
    try {
      const res = await fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(5000) });
      if (res.status === 200) return { baseUrl, pid: child.pid as number, dataDir, logFile, child, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`server not healthy within 120 s:\n${readFileSync(logFile, "utf8").slice(-4000)}`);
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
