import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { Client } from "@/tests/e2e/client";
import { ensureBuild, startServer, type RunningServer } from "@/tests/e2e/server";

/**
 * Server plumbing shared by bench/ai-gateway.ts and bench/upload-memory.ts: a production build in
 * its own directory (NEXT_DIST_DIR=.next-bench, so it never collides with the e2e build in .next),
 * `next start` through tests/e2e/server.ts (its PID is the server's own), a fresh PostgreSQL database,
 * helper processes (the OpenAI stub, s3rver) started as separate processes so their CPU work is not
 * done on the load generator's event loop.
 */
const ROOT = process.cwd();
export const BENCH_DIST_DIR = process.env.BENCH_DIST_DIR || ".next-bench";
/**
 * `next build` into BENCH_DIST_DIR unless a build newer than every source is there, or
 * BENCH_SKIP_BUILD=true and any build is there.
 */
export function ensureBenchBuild(log: (line: string) => void = console.log): void {
  const skip = process.env.BENCH_SKIP_BUILD === "true" || process.env.BENCH_SKIP_BUILD === "1";
  ensureBuild(log, { distDir: BENCH_DIST_DIR, skip, label: "bench" });
}

/** `next start` of the bench build on 127.0.0.1 (free port, temp DATA_DIR, production mode by default). */
export function startBenchServer(env: Record<string, string | undefined>, nodeArgs: string[] = []): Promise<RunningServer> {
  return startServer({ NEXT_DIST_DIR: BENCH_DIST_DIR, LOG_LEVEL: "error", ...env }, { readyTimeoutMs: 180_000, nodeArgs });
}

/** Signs `count` users in through the dev sign-in; returns their session cookie headers. */
export async function signInUsers(baseUrl: string, count: number, prefix: string): Promise<string[]> {
  const cookies: string[] = [];
  for (let i = 0; i < count; i++) {
    const c = new Client(baseUrl);
    const res = await c.signIn(`${prefix}-${i}@example.com`);
    const token = c.cookies.get("next-auth.session-token");
    if (res.status !== 200 || !token) throw new Error(`sign-in failed for ${prefix}-${i} (${res.status})`);
    cookies.push(`next-auth.session-token=${token}`);
  }
  return cookies;
}

/** The credits of the signed-in user of each cookie (subscription + bonus), through GET /api/ai/usage. */
export async function creditsOf(baseUrl: string, cookies: string[]): Promise<number> {
  let total = 0;
  for (const cookie of cookies) {
    const res = await fetch(`${baseUrl}/api/ai/usage`, { headers: { cookie } });
    const body = (await res.json()) as { remaining: number; bonusCredits: number };
    if (res.status !== 200) throw new Error(`GET /api/ai/usage: ${res.status} ${JSON.stringify(body)}`);
    total += body.remaining + body.bonusCredits;
  }
  return total;
}

export interface HelperProcess<T> {
  info: T;
  child: ChildProcess;
  /** Sends a message and waits for the helper's answer (IPC). */
  ask<R = unknown>(message: Record<string, unknown>): Promise<R>;
  stop(): Promise<void>;
}

/**
 * Starts `bench/lib/<script>` under tsx as its own process; it answers its first IPC message with
 * whatever it reports once ready (ports, env). Stopped by its PID.
 */
export async function startHelper<T>(script: string, args: string[] = []): Promise<HelperProcess<T>> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "bench", "lib", script), ...args], {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env },
  });
  const pending: ((value: unknown) => void)[] = [];
  child.on("message", (m) => pending.shift()?.(m));
  const first = new Promise<unknown>((resolve, reject) => {
    pending.push(resolve);
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
  const info = (await first) as T;
  return {
    info,
    child,
    ask: <R>(message: Record<string, unknown>) =>
      new Promise<R>((resolve) => {
        pending.push(resolve as (value: unknown) => void);
        child.send(message);
      }),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      process.kill(child.pid as number, "SIGTERM");
      const timer = setTimeout(() => child.exitCode === null && process.kill(child.pid as number, "SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export type { RunningServer };

export { freshPostgres } from "./fresh-postgres";
