import { z } from "zod";

/** Response shapes of the credit endpoints (the dashboard infers its types from these). */

/** GET /api/ai/usage (SPEC §4.4). */
export const aiUsageResponse = z.object({
  unlimited: z.boolean(),
  tier: z.string(),
  monthlyLimit: z.number(),
  remaining: z.number(),
  bonusCredits: z.number(),
  used: z.number(),
  resetAt: z.string().optional().meta({ description: "the last credit reset (SPEC §4.4); absent when the credit system is off" }),
  nextResetAt: z.string().optional().meta({
    description:
      "when the next allocation is due: the plan's renewal, or the 1st of next month (UTC) on the free tier; absent when the credit system is off",
  }),
  debt: z.number().optional().meta({
    description:
      "credits a refund took back that had already been spent (present when above 0): charges answer 402 until credits bought or granted pay it; remaining and bonusCredits read 0 meanwhile",
  }),
});

/** A credit transaction (SPEC §2). */
export const creditTransactionSchema = z.object({
  id: z.string(),
  amount: z.number(),
  balanceAfter: z.number(),
  type: z.enum(["usage", "purchase", "refund", "monthly_reset", "adjustment"]),
  operation: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
});

/** GET /api/credits/history. */
export const creditHistoryResponse = z.object({
  transactions: z.array(creditTransactionSchema),
  totalCount: z.number(),
  availableYears: z.array(z.number()),
});

/** GET /api/credits/preferences. */
export const creditPreferencesResponse = z.object({ bonusCreditsAutoUse: z.boolean(), userToggleEnabled: z.boolean() });

/** PATCH /api/credits/preferences. */
export const creditPreferencesUpdatedResponse = z.object({ success: z.boolean(), bonusCreditsAutoUse: z.boolean() });

/** GET /api/usage (lib/credits/get-usage-report.ts). */
const usageAmounts = {
  credits: z.number(),
  calls: z.number(),
  costUsd: z.number().meta({ description: "what the calls cost upstream, USD" }),
};
export const usageReportResponse = z.object({
  from: z.string(),
  to: z.string(),
  groupBy: z.enum(["day", "model", "key", "tag", "member", "end_user"]),
  stack: z.enum(["model", "key"]).nullable(),
  timeZone: z.string().meta({ description: "the IANA time zone of the day buckets (tz; default UTC)" }),
  rows: z.array(
    z.object({
      group: z.string().nullable().meta({
        description:
          "the day (YYYY-MM-DD), model, key id, tag, member id or end user; null: none (a call without a key, a tag or an end user)",
      }),
      label: z.string().nullable(),
      stack: z.string().nullable().optional(),
      stackLabel: z.string().nullable().optional(),
      ...usageAmounts,
    }),
  ),
  total: z.object(usageAmounts),
  projection: z
    .object({
      cycleStart: z.string(),
      cycleEnd: z.string(),
      allocation: z.number(),
      spent: z.number(),
      projected: z.number().nullable().meta({
        description:
          "at this cycle's pace so far, what it will have cost by its end; null until the cycle is a day old and has 10 charged calls (too little to read a pace from)",
      }),
    })
    .nullable(),
});
