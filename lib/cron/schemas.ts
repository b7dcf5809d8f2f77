import { z } from "zod";

/** A cron run's answer (SPEC §4.6); the count field is named per job (expiredCount). */
export const cronRunResponse = z
  .object({ success: z.boolean(), message: z.string(), timestamp: z.string() })
  .catchall(z.union([z.number(), z.string(), z.boolean()]));

/** GET without the bearer token: the job's configuration (DESIGN §4 "Cron"). */
export const cronStatusResponse = z.object({ status: z.enum(["active", "inactive"]), schedule: z.string(), model: z.string() });
