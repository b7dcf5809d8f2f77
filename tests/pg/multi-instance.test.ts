import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { signIn } from "@/tests/helpers/http";
import { useFreshPostgres } from "@/tests/helpers/pg";
import { expectLedgerBalances, setSubscriptionCredits } from "@/tests/integration/credits/invariant";

/**
 * Several app instances (separate Node processes, each with its own Prisma client and pool) on one
 * PostgreSQL, started at the same instant: what must hold across instances, not just across requests
 * of one process. Rate limits are one window per user, charges never overspend, a cron job never runs
 * twice at once.
 */
const databaseUrl = await useFreshPostgres();
const INSTANCES = 3;
const TSX = path.join(process.cwd(), "node_modules", ".bin", "tsx");
const WORKER = path.join(process.cwd(), "tests", "pg", "multi-instance", "instance.ts");

/**
 * Starts INSTANCES processes on the same task; each loads the app and says "ready", then all are told
 * "go" at once, so they contend whatever their start-up time.
 */
async function onAllInstances(task: Record<string, unknown>): Promise<Record<string, any>[]> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, DATABASE_POOL_MAX: "16", LOG_LEVEL: "error" };
  delete env.PGLITE_DATA_DIR;
  delete env.VITEST;
  const children = Array.from({ length: INSTANCES }, () => {
    const child = spawn(TSX, [WORKER, JSON.stringify(task)], { env, stdio: ["pipe", "pipe", "inherit"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    let output = "";
    let signalReady: () => void;
    const ready = new Promise<void>((resolve) => (signalReady = resolve));
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      if (output.startsWith("ready\n")) signalReady();
    });
    const done = new Promise<string>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code) => {
        clearTimeout(timer);
        if (!output.startsWith("ready\n")) reject(new Error(`instance exited (${code}) before it was ready: ${output}`));
        else resolve(output);
      });
    });
    return { child, ready, done };
  });
  await Promise.race([Promise.all(children.map((c) => c.ready)), Promise.all(children.map((c) => c.done))]);
  for (const { child } of children) child.stdin.write("go\n");
  const outputs = await Promise.all(children.map((c) => c.done));
  return outputs.map((stdout) => {
    const line = stdout.trim().split("\n").pop() ?? "";
    const parsed = JSON.parse(line) as { result?: Record<string, any>; error?: string };
    if (parsed.error) throw new Error(parsed.error);
    return parsed.result as Record<string, any>;
  });
}

describe("several instances on one PostgreSQL", () => {
  it("share one rate-limit window: 3 instances x 60 status requests give exactly the 100 the api category allows", async () => {
    const { cookie } = await signIn("multi-instance-limits@example.com");
    const results = await onAllInstances({ kind: "status", cookie, requests: 60, concurrency: 8 });
    const total = { ok: 0, limited: 0, other: 0 };
    for (const { statuses } of results) {
      for (const [status, count] of Object.entries(statuses as Record<string, number>)) {
        if (status === "200") total.ok += count;
        else if (status === "429") total.limited += count;
        else total.other += count;
      }
    }
    expect(total).toEqual({ ok: 100, limited: 80, other: 0 });
  }, 90_000);

  it("never overspend: 3 instances x 16 workers x 30 charges of 1 against 1,000 credits end with exactly 1,000 charged", async () => {
    const { user } = await signIn("multi-instance-credits@example.com");
    await setSubscriptionCredits(user.id, 1000);
    const results = await onAllInstances({ kind: "charge", userId: user.id, workers: 16, charges: 30 });
    const ok = results.reduce((sum, r) => sum + (r.ok as number), 0);
    const refused = results.reduce((sum, r) => sum + (r.refused as number), 0);
    expect(results.flatMap((r) => r.other as string[])).toEqual([]);
    expect(ok).toBe(1000);
    expect(refused).toBe(INSTANCES * 16 * 30 - 1000);
    const balance = await (await db()).creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
    expect(balance.subscriptionCredits).toBe(0);
    await expectLedgerBalances(user.id);
  }, 90_000);

  it("run a cron job on one instance only while it runs; the others record a skipped run", async () => {
    const job = `multi-instance-${Date.now()}`;
    const results = await onAllInstances({ kind: "cron", job, holdMs: 2_000 });
    expect(results.filter((r) => r.ran === true)).toHaveLength(1);
    expect(results.filter((r) => r.ran === false)).toHaveLength(INSTANCES - 1);
    const runs = await (await db()).cronRun.findMany({ where: { job } });
    expect(runs.map((r) => r.status).sort()).toEqual(["skipped", "skipped", "succeeded"]);
    const lock = await (await db()).cronLock.findUniqueOrThrow({ where: { job } });
    expect(lock.holder).toBeNull();
  }, 90_000);
});
