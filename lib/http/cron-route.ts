import { z } from "zod";
import { flags } from "@/lib/config/flags";
import { hasCronBearer, mayRunCron } from "@/lib/cron/cron-auth";
import type { CronJob } from "@/lib/cron/jobs";
import { runCronJob } from "@/lib/cron/run-cron-job";
import { cronRunResponse, cronStatusResponse } from "@/lib/cron/schemas";
import { AppError } from "@/lib/errors";
import { route, type NextRouteHandler } from "./route";

/**
 * The GET/POST pair of a cron endpoint (SPEC §4.6, DESIGN §4 "Cron"), for a job of lib/cron/jobs.ts:
 * - POST runs the job when `mayRunCron` allows it (401 otherwise);
 * - GET with a valid `Authorization: Bearer <CRON_SECRET>` also runs it (that is how Vercel Cron calls);
 * - GET otherwise answers `{ status: "active" | "inactive", schedule, model }` without authentication.
 * A run answers `{ success, message, expiredCount, timestamp }` (lib/cron/run-cron-job.ts).
 *
 *   export const { GET, POST, PUT, PATCH, DELETE } = methods(cronRoute(CRON_JOBS["check-trials"]));
 */
export function cronRoute(def: CronJob): { GET: NextRouteHandler; POST: NextRouteHandler } {
  const tags = ["cron"];
  return {
    POST: route(
      { auth: "none", summary: `${def.summary} (runs the job)`, tags, errors: [401], response: cronRunResponse },
      async ({ req }) => {
        if (!mayRunCron(req)) throw new AppError("unauthorized", "Invalid or missing cron bearer token");
        return runCronJob(def);
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
        if (hasCronBearer(req)) return runCronJob(def);
        return { status: def.active() ? ("active" as const) : ("inactive" as const), schedule: def.schedule, model: flags().pricingModel };
      },
    ),
  };
}
