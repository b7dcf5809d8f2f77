import { z } from "zod";

const threshold = z.number().int("must be whole percentages").min(1, "must be 1 to 100").max(100, "must be 1 to 100");

/** PUT /api/alerts. */
export const alertSettingsBody = z
  .object({
    allocationThresholds: z
      .array(threshold)
      .max(5, "at most 5 thresholds")
      .optional()
      .meta({ description: "percentages of the monthly allocation; [] for none" }),
    lowBalance: z
      .number()
      .int()
      .min(0, "must be 0 or more")
      .max(1_000_000_000)
      .optional()
      .meta({ description: "usable credits under which credits.low fires; 0: never" }),
    email: z.boolean().optional().meta({ description: "email the alerts too (webhooks get them when an endpoint subscribes)" }),
    hourlySpendLimit: z
      .number()
      .int("must be a whole number of credits")
      .min(0, "must be 0 or more")
      .max(1_000_000_000)
      .nullable()
      .optional()
      .meta({ description: "settled credits in one UTC hour at which spend.rate fires; null or 0: off" }),
    projectedOverrun: z
      .boolean()
      .optional()
      .meta({ description: "fire credits.projected_overrun when the cycle's pace would spend more than the balance before it ends" }),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: "give allocationThresholds, lowBalance, email, hourlySpendLimit or projectedOverrun",
  });

export const alertSettingsView = z.object({
  allocationThresholds: z.array(z.number()),
  lowBalance: z.number(),
  email: z.boolean(),
  hourlySpendLimit: z.number().nullable(),
  projectedOverrun: z.boolean(),
});
export const alertsResponse = z.object({
  alerts: alertSettingsView,
  fired: z
    .array(z.object({ alert: z.string(), period: z.string(), eventId: z.string().nullable(), createdAt: z.string() }))
    .meta({ description: "the last 20 alerts that fired" }),
});
export const alertsUpdatedResponse = z.object({ alerts: alertSettingsView });
export const keyAlertThresholds = z.array(threshold).max(5, "at most 5 thresholds");
