import { z } from "zod";
import { apiKeyView } from "@/lib/api-keys/schemas";

/** Requests and responses of the operator API (docs/ADMIN.md); the admin pages infer their types from these. */
export * from "./account-schemas";

const cursor = z.string().max(200).optional().meta({ description: "nextCursor of the previous page" });
const limit = z.coerce.number().int().min(1).max(100).default(25);
const iso = z.string();
const nullableIso = z.string().nullable();

export const reasonField = z
  .string({ error: "is required" })
  .trim()
  .min(3, "must say why, in at least 3 characters")
  .max(500, "must be at most 500 characters");

export const listQuery = z.object({ cursor, limit });

export const usersQuery = listQuery.extend({
  q: z
    .string()
    .trim()
    .max(200)
    .optional()
    .meta({ description: "email prefix, user id, identity-provider id, or Lemon Squeezy customer / subscription id" }),
});

export const DELIVERY_SOURCES = ["identity", "payment", "email"] as const;
export const DELIVERY_STATUSES = ["received", "processed", "failed", "pending", "ignored"] as const;
export const EMAIL_STATUSES = ["queued", "sent", "delivered", "bounced", "complained", "failed"] as const;
export const ADMIN_ACTIONS = [
  "credits.adjust",
  "user.lock",
  "user.unlock",
  "user.identity.unlink",
  "user.api_key.revoke",
  "webhook.replay",
  "cron.run",
  "outbound.replay",
] as const;

export const webhooksQuery = listQuery.extend({
  source: z.enum(DELIVERY_SOURCES).optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
  type: z.string().trim().max(100).optional().meta({ description: "event type, e.g. order_created" }),
  q: z.string().trim().max(200).optional().meta({ description: "buyer email, user id or provider object id" }),
});

export const emailsQuery = listQuery.extend({ status: z.enum(EMAIL_STATUSES).optional() });

export const auditQuery = listQuery.extend({
  action: z.enum(ADMIN_ACTIONS).optional(),
  targetId: z.string().trim().max(200).optional(),
});

export const usageQuery = z.object({
  from: z.string().trim().max(10).optional().meta({ description: "first day (UTC, YYYY-MM-DD); default 29 days before `to`" }),
  to: z.string().trim().max(10).optional().meta({ description: "last day, included (UTC, YYYY-MM-DD); default today" }),
  userId: z.string().trim().max(100).optional().meta({ description: "one user's usage" }),
});

export const cronQuery = z.object({
  job: z.string().trim().max(100).optional(),
  cursor,
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const adjustCreditsBody = z.object({
  amount: z
    .number({ error: "must be a whole number of credits" })
    .int("must be a whole number of credits")
    .refine((n) => n !== 0, "must not be 0")
    .refine((n) => Math.abs(n) <= 1_000_000_000, "must be at most 1,000,000,000 either way"),
  bucket: z.enum(["subscription", "bonus"], { error: "must be subscription or bonus" }),
  reason: reasonField,
  idempotencyKey: z
    .string({ error: "is required" })
    .trim()
    .min(1, "is required")
    .max(200)
    .regex(/^[\w.:-]+$/, "must be letters, digits, _ . : or -"),
});

export const reasonBody = z.object({ reason: reasonField });

export const unlinkIdentityResponse = z.object({
  unlinked: z.boolean(),
  provider: z.string(),
  sessionsRevokedAt: iso.meta({ description: "every session of the user signed in until then has ended" }),
  apiKeysRevoked: z.number().meta({ description: "the user's API keys that were active, now revoked" }),
});

// ---- responses -----------------------------------------------------------------------------------

const cronRunRow = z.object({
  id: z.string(),
  job: z.string(),
  status: z.string(),
  result: z.unknown(),
  error: z.string().nullable(),
  startedAt: iso,
  finishedAt: nullableIso,
});

export const cronOverviewResponse = z.object({
  jobs: z.array(
    z.object({
      job: z.string(),
      schedule: z.string(),
      active: z.boolean(),
      lockedUntil: nullableIso,
      runs: z.array(cronRunRow),
      nextCursor: z.string().nullable(),
    }),
  ),
});

export const cronRunNowResponse = z.object({ success: z.boolean(), message: z.string(), expiredCount: z.number(), timestamp: iso });

export const emailsListResponse = z.object({
  emails: z.array(
    z.object({
      id: z.string(),
      userId: z.string().nullable(),
      to: z.string(),
      subject: z.string(),
      type: z.string(),
      status: z.string(),
      provider: z.string(),
      providerMessageId: z.string().nullable(),
      error: z.string().nullable(),
      lastEventAt: nullableIso,
      createdAt: iso,
      events: z.array(z.object({ eventType: z.string(), status: z.string(), occurredAt: nullableIso, receivedAt: iso })),
    }),
  ),
  nextCursor: z.string().nullable(),
});

export const summaryResponse = z.object({
  users: z.object({ total: z.number(), byTier: z.record(z.string(), z.number()), locked: z.number() }),
  subscriptions: z.object({ active: z.number(), byStatus: z.record(z.string(), z.number()) }),
  credits: z.object({
    today: z.object({ granted: z.number(), used: z.number(), refunded: z.number() }),
    month: z.object({ granted: z.number(), used: z.number(), refunded: z.number() }),
  }),
  webhooks: z.object({ failedLast24h: z.number(), pending: z.number() }),
  cron: z.object({ failedLast24h: z.number(), failedLast7d: z.number() }),
  emails: z.object({
    failedLast24h: z.number(),
    /** Sign-in links that did not go out in the last 24 hours: people who could not sign in. */
    signInFailedLast24h: z.number(),
    /** The latest failure's reason (what to set), if any in the last 24 hours. */
    lastFailure: z.object({ at: iso, type: z.string(), error: z.string() }).nullable(),
  }),
  generatedAt: iso,
});

export const auditListResponse = z.object({
  actions: z.array(
    z.object({
      id: z.string(),
      operatorId: z.string().nullable(),
      operator: z.string(),
      action: z.string(),
      targetType: z.string(),
      targetId: z.string(),
      reason: z.string(),
      requestId: z.string().nullable(),
      details: z.unknown(),
      createdAt: iso,
    }),
  ),
  nextCursor: z.string().nullable(),
});

export { aiRoutesResponse, usageReportResponse } from "./report-schemas";

export const revokeKeyResponse = z.object({
  key: apiKeyView,
  changed: z.boolean().meta({ description: "false when the key was already revoked" }),
});

/** GET /api/admin/outbound: outbound webhook deliveries and alert emails. */
export const outboundQuery = listQuery.extend({
  status: z.enum(["pending", "delivered", "failed"]).optional(),
  accountId: z.string().trim().max(100).optional().meta({ description: "one account's (a person's or an organisation's)" }),
});
export const outboundRow = z.object({
  id: z.string(),
  accountId: z.string(),
  type: z.string(),
  target: z.string().meta({ description: "the endpoint's URL, or email:<address>" }),
  status: z.string(),
  attempts: z.number(),
  lastStatus: z.number().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  createdAt: iso,
});
export const outboundListResponse = z.object({ deliveries: z.array(outboundRow), nextCursor: z.string().nullable() });
export const outboundReplayResponse = z.object({ delivery: outboundRow });
