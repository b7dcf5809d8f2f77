import { z } from "zod";

/** Response shapes of the payment endpoints (the dashboard infers its types from these). */

/** Every checkout creation (plans, bonus packages). */
export const checkoutUrlResponse = z.object({ checkoutUrl: z.string() });

/** GET /api/payments/subscription (SPEC §2 "Subscription details"). */
export const subscriptionDetailsResponse = z.object({
  subscription: z
    .object({
      id: z.string(),
      status: z.string(),
      variantId: z.string(),
      currentPeriodEnd: z.string().nullable(),
      trialEndsAt: z.string().nullable(),
      endsAt: z.string().nullable(),
      paymentFailed: z.boolean(),
    })
    .nullable(),
  hasActiveSubscription: z.boolean(),
  tier: z.string(),
  billingPeriod: z.string(),
  planName: z.string(),
  isFreePlan: z.boolean(),
  user: z.object({ downgradeCount: z.number(), hasUsedTrial: z.boolean() }),
  /** What the plan allows and the service enforces. */
  limits: z.object({ monthlyCredits: z.number(), bonusMonthlyLimit: z.number(), maxUploadBytes: z.number(), batchChatSize: z.number() }),
});

export const cancelSubscriptionResponse = z.object({ message: z.string(), endsAt: z.string() });

export const changePlanResponse = z.object({
  success: z.boolean(),
  message: z.string(),
  newVariantId: z.string(),
  subscription: z.object({ status: z.string(), currentPeriodEnd: z.string().nullable() }),
});

/** POST /api/payments/create-portal-session (valid 24 hours). */
export const portalSessionResponse = z.object({ url: z.string() });

/** POST /api/payments/customer-portal. */
export const customerPortalResponse = z.object({ portalUrl: z.string() });

/** GET /api/credits/bonus-packages (SPEC §4.2). */
export const bonusPackagesResponse = z.object({
  enabled: z.boolean(),
  packages: z.array(z.object({ credits: z.number(), price: z.number(), variantId: z.string() })),
  monthlyLimit: z.number(),
  monthlyPurchasedCredits: z.number(),
  canPurchaseMore: z.boolean(),
  tier: z.string(),
});

/** GET /api/payments/debug (development only): internal state, free-form. */
export const paymentsDebugResponse = z.record(z.string(), z.unknown());

/** GET /api/payments/receipts: the account's payments, newest first. */
export const receiptsResponse = z.object({
  payments: z.array(
    z.object({
      id: z.string(),
      paidAt: z.string(),
      kind: z
        .enum(["pack", "plan", "renewal"])
        .or(z.string())
        .meta({ description: "pack (bonus credits), plan (a subscription's first payment), renewal" }),
      description: z.string(),
      amount: z.number().meta({ description: "in the currency's smallest unit (cents)" }),
      currency: z.string(),
      refundedAmount: z.number().meta({ description: "refunded so far, in cents" }),
      status: z.string().meta({
        description:
          "paid | partially_refunded | refunded | disputed (credits frozen while the bank decides) | charged_back (a lost dispute)",
      }),
      credits: z.number().meta({ description: "the credits the payment bought" }),
      creditsTakenBack: z.number().meta({ description: "the credits its refunds took back (unspent ones, or as debt)" }),
      refundedAt: z.string().nullable(),
      dispute: z
        .object({
          status: z.string().meta({ description: "open | won | lost" }),
          amount: z.number().meta({ description: "the disputed amount, in cents" }),
          creditsHeld: z.number().meta({ description: "unspent credits frozen while the dispute is open" }),
        })
        .nullable()
        .meta({ description: "a dispute (chargeback) on the payment (Stripe), null when none" }),
      receiptUrl: z
        .string()
        .nullable()
        .meta({ description: "the provider's receipt or invoice (the local simulator's receipt page, 24 hours)" }),
    }),
  ),
});

/** PUT /api/credits/auto-recharge. */
export const autoRechargeBody = z.strictObject({
  enabled: z.boolean(),
  threshold: z.number().int().min(0).max(10_000_000).meta({ description: "a top-up starts when a charge leaves the balance under this" }),
  variantId: z.string().min(1).max(200).meta({ description: "the bonus package bought each time (one of the tier's)" }),
  monthlyMaxCount: z.number().int().min(1).max(100).meta({ description: "at most this many top-ups per calendar month (UTC)" }),
  monthlyMaxAmount: z
    .number()
    .int()
    .min(1)
    .max(100_000_000)
    .meta({ description: "at most this much money per calendar month, in cents (at least one top-up)" }),
});

/** GET and PUT /api/credits/auto-recharge. */
export const autoRechargeResponse = z.object({
  available: z.boolean().meta({ description: "whether auto-recharge can run here (Stripe, and a saved card)" }),
  unavailableReason: z.string().nullable(),
  settings: z
    .object({
      enabled: z.boolean(),
      threshold: z.number(),
      variantId: z.string(),
      credits: z.number(),
      amount: z.number().meta({ description: "cents" }),
      currency: z.string(),
      monthlyMaxCount: z.number(),
      monthlyMaxAmount: z.number().meta({ description: "cents" }),
      pausedAt: z.string().nullable().meta({ description: "set when a top-up failed: auto-recharge waits for the owner" }),
      pausedReason: z.string().nullable(),
    })
    .nullable(),
  card: z.string().nullable().meta({ description: "the saved card, e.g. visa ending 4242" }),
  packages: z.array(z.object({ variantId: z.string(), credits: z.number(), price: z.number() })),
  thisMonth: z.object({ count: z.number(), amount: z.number().meta({ description: "cents" }) }),
  recent: z.array(
    z.object({
      id: z.string(),
      status: z.string().meta({ description: "claimed | processing | succeeded | failed" }),
      credits: z.number(),
      amount: z.number(),
      createdAt: z.string(),
      finishedAt: z.string().nullable(),
      error: z.string().nullable(),
    }),
  ),
});
