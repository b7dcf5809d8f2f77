import { flags } from "@/lib/config/flags";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { route, type NextRouteHandler } from "./route";
import { hasCronBearer, mayRunCron } from "@/lib/cron/cron-auth";
import { runJobExclusively, type JobOutcome } from "@/lib/cron/run-job";
import { cronRunResponse, cronStatusResponse } from "@/lib/cron/schemas";
import { z } from "zod";

/**
 * The GET/POST pattern shared by the cron endpoints (SPEC §4.6, DESIGN §4 "Cron"):
 * - POST runs the job when `mayRunCron` allows it (401 otherwise);
 * - GET with a valid `Authorization: Bearer <CRON_SECRET>` also runs it (that is how Vercel Cron calls);
 * - GET otherwise answers `{ status: "active" | "inactive", schedule, model }` without authentication.
 * A run answers `{ success, message, <countField>, timestamp }`; when the job is inactive under the
 * current configuration it is a no-op (success true, count 0); a run that finds the job already
 * running elsewhere answers success false (the job never runs twice at once).
 *
 *   export const { GET, POST, PUT, PATCH, DELETE } = methods(cronRoute({ job, schedule, ... }));
 */
export interface CronJobDefinition {
  /** Lock and run-log name, e.g. "expire-bonus-credits". */
  job: string;
  /** Cron expression, as in vercel.json. */
  schedule: string;
  /** OpenAPI summary. */
  summary: string;
  /** Whether the job applies under the current configuration (e.g. credit_based only). */
  active: () => boolean;
  /** The message of a run while inactive, e.g. "Skipped: bonus credit expiry applies only in credit_based mode". */
  inactiveMessage: string;
  run: () => Promise<JobOutcome>;
  /**
   * Daily housekeeping that runs with every authorised call, whether or not the job itself applies
   * under the current configuration (failures are logged, never fail the job).
   */
  housekeeping?: () => Promise<unknown>;
  /** Name of the count field in the response (default "expiredCount"). */
  countField?: string;
  tags?: string[];
}

export function cronRoute(def: CronJobDefinition): { GET: NextRouteHandler; POST: NextRouteHandler } {
  const countField = def.countField ?? "expiredCount";
  const execute = async () => {
    const timestamp = () => new Date().toISOString();
    if (def.housekeeping) await def.housekeeping().catch((error) => log.error("cron housekeeping failed", { job: def.job, error: (error as Error).message }));
    if (!def.active()) return { success: true, message: def.inactiveMessage, [countField]: 0, timestamp: timestamp() };
    const result = await runJobExclusively(def.job, def.run);
    return { success: result.ran, message: result.message, [countField]: result.count, timestamp: timestamp() };
  };
  const tags = def.tags ?? ["cron"];
  return {
    POST: route(
      { auth: "none", summary: `${def.summary} (runs the job)`, tags, errors: [401], response: cronRunResponse },
      async ({ req }) => {
        if (!mayRunCron(req)) throw new AppError("unauthorized", "Invalid or missing cron bearer token");
        return execute();
      },
    ),
    GET: route(
      {
        auth: "none",
        summary: `${def.summary}: configuration status; with the cron bearer token, runs the job`,
        tags,
        response: z.union([cronStatusResponse, cronRunResponse]),
      },
      async ({ req }) => {
        if (hasCronBearer(req)) return execute();
        return { status: def.active() ? ("active" as const) : ("inactive" as const), schedule: def.schedule, model: flags().pricingModel };
      },
    ),
  };
}
