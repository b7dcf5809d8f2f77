import { CRON_JOBS, isCronJobName } from "@/lib/cron/jobs";
import { runCronJob, type CronRunAnswer } from "@/lib/cron/run-cron-job";
import { db } from "@/lib/db/client";
import { notFound } from "@/lib/errors";
import { recordAdminAction } from "./record-admin-action";
import type { Operator } from "@/lib/auth/resolve-operator";

/**
 * Runs a scheduled job now, exactly as the scheduler does: the daily housekeeping, then the job under
 * its lock (it never runs twice at once, across instances; a run that finds it running answers
 * success false). The audit row is written before the run, and its outcome added after.
 */
export async function runCronNow(input: {
  operator: Operator;
  job: string;
  reason: string;
  requestId: string | null;
}): Promise<CronRunAnswer> {
  if (!isCronJobName(input.job)) throw notFound("Cron job");
  const prisma = await db();
  const auditId = await prisma.$transaction((tx) =>
    recordAdminAction(tx, {
      operator: input.operator,
      action: "cron.run",
      targetType: "cron",
      targetId: input.job,
      reason: input.reason,
      requestId: input.requestId,
    }),
  );
  let answer: CronRunAnswer;
  try {
    answer = await runCronJob(CRON_JOBS[input.job]);
  } catch (error) {
    await prisma.adminAction.update({
      where: { id: auditId },
      data: { details: { success: false, error: (error as Error).message.slice(0, 500) } },
    });
    throw error;
  }
  await prisma.adminAction.update({
    where: { id: auditId },
    data: { details: { success: answer.success, message: answer.message, count: answer.expiredCount } },
  });
  return answer;
}
