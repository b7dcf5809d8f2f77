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
  promptTokens: z.number().meta({ description: "input tokens the provider reported for the settled calls" }),
  completionTokens: z.number().meta({ description: "output tokens the provider reported for the settled calls" }),
};
export const usageReportResponse = z.object({
  from: z.string(),
  to: z.string(),
  groupBy: z.enum(["day", "model", "key", "tag", "member", "end_user", "metadata"]),
  metadataKey: z.string().nullable().meta({ description: "with group_by=metadata: the request metadata key grouped by" }),
  stack: z.enum(["model", "key"]).nullable(),
  timeZone: z.string().meta({ description: "the IANA time zone of the day buckets (tz; default UTC)" }),
  rows: z.array(
    z.object({
      group: z.string().nullable().meta({
        description:
          "the day (YYYY-MM-DD), model, key id, tag, member id, end user or metadata value; null: none (a call without a key, a tag, an end user or that metadata key)",
      }),
      label: z.string().nullable(),
      stack: z.string().nullable().optional(),
      stackLabel: z.string().nullable().optional(),
      ...usageAmounts,
    }),
  ),
  nextCursor: z.string().nullable().meta({ description: "more rows: pass it as cursor for the next page; null: the last page" }),
  total: z.object(usageAmounts).meta({ description: "the period's charges, each once, over every page" }),
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

/** GET /api/usage/requests/{id} (lib/credits/get-request-usage.ts). */
export const requestUsageResponse = z.object({
  id: z.string().meta({ description: "the charge's id (the credit history's operation id)" }),
  completionId: z.string().meta({ description: "the id a /v1 chat completion of this charge carries" }),
  createdAt: z.string(),
  operation: z.string().nullable(),
  status: z.enum(["reserved", "settled", "refunded"]).meta({ description: "reserved: the call is still running" }),
  model: z.string().nullable(),
  pricing: z.string().nullable().meta({ description: "flat or metered" }),
  credits: z.number().meta({ description: "credits charged (0 when refunded; the reservation while still running)" }),
  costUsd: z.number().nullable().meta({ description: "what the call cost upstream, USD (null until settled)" }),
  promptTokens: z.number().nullable(),
  cachedPromptTokens: z.number().nullable(),
  completionTokens: z.number().nullable(),
  apiKeyId: z.string().nullable(),
  memberId: z.string().nullable(),
  endUser: z.string().nullable(),
  tags: z.array(z.string()),
  requestMetadata: z.record(z.string(), z.string()).nullable(),
});
