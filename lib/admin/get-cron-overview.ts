import type { z } from "zod";
import { CRON_JOBS, CRON_JOB_NAMES, isCronJobName } from "@/lib/cron/jobs";
import { db } from "@/lib/db/client";
import { notFound } from "@/lib/errors";
import { after, decodeCursor, page } from "./cursor";
import type { cronOverviewResponse } from "./schemas";

/**
 * Each scheduled job with its schedule, whether it applies under the current configuration, its lock
 * and its recent runs (status, result, error), newest first; `job` + `cursor` page through one job's
 * older runs.
 */
export async function getCronOverview(input: {
  job?: string;
  cursor?: string;
  limit: number;
}): Promise<z.infer<typeof cronOverviewResponse>> {
  if (input.job !== undefined && !isCronJobName(input.job)) throw notFound("Cron job");
  const prisma = await db();
  const names = input.job ? [input.job as (typeof CRON_JOB_NAMES)[number]] : [...CRON_JOB_NAMES];
  const cursor = decodeCursor(input.cursor);
  const locks = await prisma.cronLock.findMany({ where: { job: { in: names } } });
  const jobs = await Promise.all(
    names.map(async (name) => {
      const rows = await prisma.cronRun.findMany({
        where: { AND: [{ job: name }, after("startedAt", cursor)] },
        orderBy: [{ startedAt: "desc" }, { id: "desc" }],
        take: input.limit + 1,
      });
      const { items, nextCursor } = page(rows, input.limit, (r) => r.startedAt);
      const lock = locks.find((l) => l.job === name);
      const def = CRON_JOBS[name];
      return {
        job: name,
        schedule: def.schedule,
        active: def.active(),
        lockedUntil: lock?.lockedUntil && lock.lockedUntil > new Date() ? lock.lockedUntil.toISOString() : null,
        runs: items.map((r) => ({
          id: r.id,
          job: r.job,
          status: r.status,
          result: r.result,
          error: r.error,
          startedAt: r.startedAt.toISOString(),
          finishedAt: r.finishedAt?.toISOString() ?? null,
        })),
        nextCursor,
      };
    }),
  );
  return { jobs };
}
