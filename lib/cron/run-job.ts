import { randomUUID } from "node:crypto";
import { db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { metrics } from "@/lib/metrics";

export interface JobOutcome {
  message: string;
  count: number;
  details?: Record<string, unknown>;
}

export type JobResult = ({ ran: true } & JobOutcome) | { ran: false; message: string; count: 0 };

/**
 * Runs a scheduled job under its lock so it never runs twice at once, across instances: the lock is
 * one conditional upsert (taken only when free or expired), released when the job ends. Each run is
 * recorded in cron_runs.
 */
export async function runJobExclusively(
  job: string,
  work: () => Promise<JobOutcome>,
  options: { maxDurationMs?: number } = {},
): Promise<JobResult> {
  const prisma = await db();
  const holder = randomUUID();
  const maxDurationMs = options.maxDurationMs ?? 15 * 60 * 1000;
  const taken = await prisma.$queryRaw<{ holder: string }[]>`
    INSERT INTO cron_locks (job, holder, locked_until)
    VALUES (${job}, ${holder}, now() + make_interval(secs => ${maxDurationMs / 1000}))
    ON CONFLICT (job) DO UPDATE SET holder = EXCLUDED.holder, locked_until = EXCLUDED.locked_until
      WHERE cron_locks.locked_until IS NULL OR cron_locks.locked_until < now()
    RETURNING holder`;
  if (taken.length === 0) {
    log.warn("cron job already running; skipped", { job });
    await prisma.cronRun.create({ data: { job, status: "skipped", finishedAt: new Date(), result: { reason: "already running" } } });
    metrics().cronRuns.inc({ job, status: "skipped" });
    return { ran: false, message: `${job} is already running`, count: 0 };
  }
  const run = await prisma.cronRun.create({ data: { job, status: "running" } });
  const started = Date.now();
  log.info("cron job started", { job, runId: run.id });
  try {
    const outcome = await work();
    await prisma.cronRun.update({
      where: { id: run.id },
      data: {
        status: "succeeded",
        finishedAt: new Date(),
        result: { message: outcome.message, count: outcome.count, ...(outcome.details ?? {}) } as never,
      },
    });
    log.info("cron job finished", { job, runId: run.id, count: outcome.count, ms: Date.now() - started });
    metrics().cronRuns.inc({ job, status: "success" });
    return { ran: true, ...outcome };
  } catch (error) {
    await prisma.cronRun.update({
      where: { id: run.id },
      data: { status: "failed", finishedAt: new Date(), error: (error as Error).message },
    });
    metrics().cronRuns.inc({ job, status: "failed" });
    throw error;
  } finally {
    await prisma.cronLock.updateMany({ where: { job, holder }, data: { holder: null, lockedUntil: null } });
  }
}
