import { z } from "zod";
import { oneLineText } from "@/lib/text-shapes";
import { keyAlertThresholds } from "@/lib/spend-alerts/schemas";

/** Requests and responses of /api/keys (the dashboard's Keys page infers its types from these). */
export const KEY_KINDS = ["chat", "embeddings", "images", "transcription"] as const;
export type KeyKind = (typeof KEY_KINDS)[number];
export const BUDGET_PERIODS = ["day", "month", "total"] as const;

const name = oneLineText(100);
const limits = {
  models: z
    .array(z.string().min(1).max(100))
    .max(50)
    .optional()
    .meta({ description: "models the key may use; absent or empty: every model the user may use" }),
  kinds: z.array(z.enum(KEY_KINDS)).max(4).optional().meta({ description: "call kinds the key may make; absent or empty: all" }),
  budget: z
    .object({
      credits: z.number().int("must be a whole number of credits").positive("must be positive").max(1_000_000_000),
      period: z.enum(BUDGET_PERIODS, { error: "must be day, month or total" }),
    })
    .nullable()
    .optional()
    .meta({ description: "the most credits the key may spend per UTC day, calendar month, or in all; null: no budget" }),
  rpm: z.number().int().positive().max(100_000).nullable().optional().meta({ description: "requests per minute; null: no limit" }),
  alertThresholds: keyAlertThresholds
    .optional()
    .meta({ description: "percentages of the budget at which budget.threshold fires (default [100]); [] for none" }),
  expiresAt: z.iso
    .datetime({ offset: true, message: "must be an ISO 8601 date-time" })
    .nullable()
    .optional()
    .meta({ description: "when the key stops working; null: never" }),
};

export const createKeyBody = z.object({
  name,
  ...limits,
  service: z.boolean({ error: "must be true or false" }).optional().meta({
    description:
      "an organisation's service key (its owner and admins, acting as it): it belongs to the organisation, not to you; its calls count against no member's caps and it survives your leaving",
  }),
});
export const updateKeyBody = z
  .object({ name: name.optional(), ...limits })
  .refine((b) => Object.values(b).some((v) => v !== undefined), "must change at least one field (name or a limit)");
export type CreateKeyBody = z.infer<typeof createKeyBody>;
export type UpdateKeyBody = z.infer<typeof updateKeyBody>;

export const apiKeyView = z.object({
  id: z.string(),
  name: z.string(),
  display: z.string().meta({ description: "prefix…last four, e.g. sk-AbCd…wxyz" }),
  models: z.array(z.string()),
  kinds: z.array(z.string()),
  budget: z.object({ credits: z.number(), period: z.string(), spent: z.number(), resetsAt: z.string().nullable() }).nullable(),
  alertThresholds: z.array(z.number()),
  rpm: z.number().nullable(),
  expiresAt: z.string().nullable(),
  status: z.enum(["active", "expired", "revoked"]),
  service: z.boolean().meta({ description: "an organisation's service key (belongs to the organisation, not to its maker)" }),
  revokedAt: z.string().nullable(),
  totalSpent: z.number().meta({ description: "credits its calls were charged, in all" }),
  lastUsedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type ApiKeyView = z.infer<typeof apiKeyView>;

export const keysListResponse = z.object({ keys: z.array(apiKeyView) });
export const keyCreatedResponse = z.object({
  key: apiKeyView,
  secret: z.string().meta({ description: "the key itself: shown this once, never again" }),
});
export const keyResponse = z.object({ key: apiKeyView });
