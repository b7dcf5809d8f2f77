/**
 * One "instance" of the app for the multi-instance suite: a separate Node process with its own Prisma
 * client and connection pool on the shared PostgreSQL, as two serverless instances would be. It runs
 * one task from argv (JSON): it loads the app, prints "ready", waits for "go" on stdin (the test sends
 * it once every instance is ready, so all contend at once) and prints one JSON line with what it saw.
 */
import { GET as userStatus } from "@/app/api/user/status/route";
import { reserveCredits } from "@/lib/credits";
import { runJobExclusively } from "@/lib/cron/run-job";
import { closeDb } from "@/lib/db/client";

type Task =
  | { kind: "status"; cookie: string; requests: number; concurrency: number }
  | { kind: "charge"; userId: string; workers: number; charges: number }
  | { kind: "cron"; job: string; holdMs: number };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

async function pool(workers: number, each: () => Promise<void>) {
  await Promise.all(Array.from({ length: workers }, each));
}

async function run(task: Task): Promise<Record<string, unknown>> {
  await new Promise<void>((resolve) => {
    process.stdin.once("data", () => resolve());
    process.stdout.write("ready\n");
  });
  if (task.kind === "status") {
    const statuses: Record<number, number> = {};
    let left = task.requests;
    await pool(task.concurrency, async () => {
      while (left > 0) {
        left -= 1;
        const response = await userStatus(
          new Request("http://localhost:3000/api/user/status", { headers: { cookie: task.cookie, "x-forwarded-for": "203.0.113.7" } }),
          { params: Promise.resolve({}) },
        );
        await response.arrayBuffer();
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      }
    });
    return { statuses };
  }
  if (task.kind === "charge") {
    let ok = 0;
    let refused = 0;
    const other: string[] = [];
    await pool(task.workers, async () => {
      for (let i = 0; i < task.charges; i++) {
        try {
          await reserveCredits({ userId: task.userId, amount: 1, operation: "multi_instance_test" });
          ok += 1;
        } catch (error) {
          if ((error as { code?: string }).code === "insufficient_credits") refused += 1;
          else other.push((error as Error).message);
        }
      }
    });
    return { ok, refused, other };
  }
  const result = await runJobExclusively(task.job, async () => {
    await sleep(task.holdMs);
    return { message: "held the lock", count: 1 };
  });
  return { ran: result.ran };
}

const task = JSON.parse(process.argv[2] ?? "{}") as Task;
run(task)
  .then(async (result) => {
    await closeDb();
    process.stdin.destroy();
    process.stdout.write(`${JSON.stringify({ result })}\n`);
    process.exit(0);
  })
  .catch((error) => {
    process.stdout.write(`${JSON.stringify({ error: (error as Error).stack ?? String(error) })}\n`);
    process.exit(1);
  });
