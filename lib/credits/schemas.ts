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
  resetAt: z.string().optional(),
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
