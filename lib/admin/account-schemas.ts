import { z } from "zod";
import { apiKeyView } from "@/lib/api-keys/schemas";

/**
 * The operator API's account responses (docs/ADMIN.md): the account lists, one account's overview (its
 * wallet, ledger, subscriptions, deliveries, keys, members), and the answers of the actions on it.
 * Re-exported by lib/admin/schemas.ts.
 */
const iso = z.string();
const nullableIso = z.string().nullable();

const balances = z.object({ subscription: z.number(), bonus: z.number() });

export const adminUserRow = z.object({
  id: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  tier: z.string(),
  subscriptionStatus: z.string().nullable(),
  balances,
  locked: z.boolean(),
  createdAt: iso,
});

export const usersListResponse = z.object({ users: z.array(adminUserRow), nextCursor: z.string().nullable() });

export const organisationsListResponse = z.object({
  organisations: z.array(
    z.object({
      id: z.string().meta({ description: "the organisation's account id: its wallet, ledger and keys are at /api/admin/users/{id}" }),
      name: z.string(),
      slug: z.string(),
      tier: z.string(),
      owner: z.string().nullable(),
      members: z.number(),
      balances: z.object({ subscription: z.number(), bonus: z.number() }),
      createdAt: iso,
    }),
  ),
  nextCursor: z.string().nullable(),
});

export const ledgerRow = z.object({
  id: z.string(),
  amount: z.number(),
  balanceAfter: z.number(),
  type: z.string(),
  operation: z.string(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  createdAt: iso,
});

export const deliveryRow = z.object({
  id: z.string(),
  source: z.string(),
  eventType: z.string(),
  status: z.string(),
  error: z.string().nullable(),
  userEmail: z.string().nullable(),
  userRef: z.string().nullable(),
  objectId: z.string().nullable(),
  occurredAt: nullableIso,
  receivedAt: iso,
  processedAt: nullableIso,
});

export const userOverviewResponse = z.object({
  user: z.object({
    id: z.string(),
    kind: z
      .enum(["person", "organisation"])
      .meta({ description: "an organisation's account has the same wallet, ledger, subscriptions and keys as a person's" }),
    email: z.string().nullable(),
    name: z.string().nullable(),
    externalId: z.string().nullable(),
    tier: z.string(),
    billingPeriod: z.string(),
    downgradeCount: z.number(),
    hasUsedTrial: z.boolean(),
    bonusCreditsAutoUse: z.boolean(),
    lockedAt: nullableIso,
    lockReason: z.string().nullable(),
    createdAt: iso,
  }),
  organisation: z
    .object({
      name: z.string(),
      slug: z.string(),
      members: z.array(
        z.object({
          userId: z.string(),
          email: z.string().nullable(),
          role: z.string(),
          dailyCap: z.number().nullable(),
          monthlyCap: z.number().nullable(),
          spentToday: z.number(),
          spentThisMonth: z.number(),
        }),
      ),
    })
    .nullable()
    .meta({ description: "an organisation's name, slug and members (null for a person)" }),
  identities: z.array(
    z.object({
      id: z.string(),
      provider: z.string().meta({ description: "sign-in provider id: github, google, oidc" }),
      providerAccountId: z.string().meta({ description: "the user's id at that provider (OIDC subject)" }),
      createdAt: iso.meta({ description: "when it was linked (first sign-in with it)" }),
    }),
  ),
  apiKeys: z.array(apiKeyView).meta({ description: "the user's API keys (never their secrets), newest first, at most 100" }),
  subscriptions: z.array(
    z.object({
      id: z.string(),
      provider: z.string(),
      providerSubscriptionId: z.string(),
      providerCustomerId: z.string().nullable(),
      status: z.string(),
      tier: z.string(),
      billingPeriod: z.string(),
      variantId: z.string(),
      currentPeriodEnd: nullableIso,
      trialEndsAt: nullableIso,
      endsAt: nullableIso,
      paymentFailedAt: nullableIso,
      createdAt: iso,
      history: z.array(
        z.object({
          event: z.string(),
          source: z.string(),
          statusFrom: z.string().nullable(),
          statusTo: z.string(),
          tier: z.string(),
          variantId: z.string(),
          occurredAt: iso,
          recordedAt: iso,
        }),
      ),
    }),
  ),
  credits: z.object({
    subscription: z.object({ balance: z.number(), monthlyAllocation: z.number(), resetAt: nullableIso, cycle: z.string().nullable() }),
    bonus: z.array(
      z.object({
        id: z.string(),
        orderId: z.string(),
        variantId: z.string(),
        credits: z.number(),
        remaining: z.number(),
        expiresAt: iso,
        expiredAt: nullableIso,
        createdAt: iso,
      }),
    ),
    balances,
    debt: z.number().meta({ description: "credits a refund took back that had been spent; charges are refused while above 0" }),
  }),
  payments: z.array(
    z.object({
      id: z.string(),
      provider: z.string(),
      providerPaymentId: z.string(),
      kind: z.string(),
      description: z.string(),
      amount: z.number(),
      currency: z.string(),
      refundedAmount: z.number(),
      status: z.string(),
      credits: z.number(),
      creditsTakenBack: z.number(),
      receiptUrl: z.string().nullable(),
      paidAt: iso,
      refundedAt: nullableIso,
    }),
  ),
  ledger: z.array(ledgerRow),
  counts: z.object({ files: z.number(), ragDocuments: z.number(), ragConversations: z.number(), emails: z.number() }),
  deliveries: z.array(deliveryRow),
});

export const adjustCreditsResponse = z.object({ applied: z.boolean(), operationId: z.string(), balances });

export const lockResponse = z.object({
  changed: z.boolean(),
  locked: z.boolean(),
  lockedAt: nullableIso,
  lockReason: z.string().nullable(),
});

export const deliveriesListResponse = z.object({ deliveries: z.array(deliveryRow), nextCursor: z.string().nullable() });

export const deliveryDetailResponse = deliveryRow.extend({ deliveryId: z.string(), payload: z.unknown() });

export const replayResponse = z.object({ status: z.string(), result: z.string(), delivery: deliveryRow });
