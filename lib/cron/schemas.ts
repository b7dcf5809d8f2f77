import { z } from "zod";

/** A cron run's answer (SPEC §4.6). */
export const cronRunResponse = z.object({ success: z.boolean(), message: z.string(), expiredCount: z.number(), timestamp: z.string() });

/** GET without the bearer token: the job's configuration (DESIGN §4 "Cron"). */
export const cronStatusResponse = z.object({ status: z.enum(["active", "inactive"]), schedule: z.string(), model: z.string() });
