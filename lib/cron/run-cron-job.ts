import { log } from "@/lib/log";
import type { CronJob } from "./jobs";
import { runJobExclusively } from "./run-job";

export interface CronRunAnswer {
  success: boolean;
  message: string;
  expiredCount: number;
  timestamp: string;
}

/**
 * One authorised run of a job, as the scheduler and an operator trigger it: the daily housekeeping,
 * then the job under its lock (a no-op with success when it does not apply under the current
 * configuration; success false when another instance is running it).
 */
export async function runCronJob(def: CronJob): Promise<CronRunAnswer> {
  const timestamp = () => new Date().toISOString();
  if (def.housekeeping)
    await def.housekeeping().catch((error) => log.error("cron housekeeping failed", { job: def.job, error: (error as Error).message }));
  if (!def.active()) return { success: true, message: def.inactiveMessage, expiredCount: 0, timestamp: timestamp() };
  const result = await runJobExclusively(def.job, def.run);
  return { success: result.ran, message: result.message, expiredCount: result.count, timestamp: timestamp() };
}
