import { z } from "zod";

/** Response shapes of the configuration endpoints. */

const tierPrice = z.object({ key: z.string(), name: z.string(), monthlyPrice: z.number(), yearlyPrice: z.number() });
const perTier = <T extends z.ZodType>(value: T) => z.record(z.string(), value);

const tokenPrices = z.object({ input: z.number(), cachedInput: z.number().optional(), output: z.number().optional() });
const chatLimit = z.object({ maxInputTokens: z.number(), maxOutputTokens: z.number() });

/** How AI calls are priced (docs/API-NOTES.md "Pricing"): the mode, a credit's value, and the models in use. */
export const aiPricing = z.object({
  mode: z
    .enum(["flat", "metered"])
    .meta({ description: "flat: SPEC's fixed costs (flatCosts); metered: provider cost x markup / creditValueUsd, rounded up" }),
  creditValueUsd: z.number(),
  markup: z.number(),
  minCreditsPerCall: z.number(),
  pricesAsOf: z.string().meta({ description: "date of the list prices" }),
  flatCosts: z.record(z.string(), z.number()),
  models: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(["chat", "embedding", "image", "transcription"]),
      vendor: z.string(),
      contextWindow: z.number().optional(),
      maxOutputTokens: z.number().optional(),
      usdPerMillionTokens: tokenPrices.optional(),
      longContext: tokenPrices.extend({ above: z.number() }).optional(),
      usdPerImage: z.record(z.string(), z.record(z.string(), z.number())).optional(),
      usdPerAudioMinute: z.number().optional(),
      flatLimits: z
        .object({ chat: chatLimit, stream: chatLimit })
        .optional()
        .meta({ description: "flat mode: the largest input (with no output) and output (with a short prompt) each flat price accepts" }),
      flatBudgetUsd: z.number().optional(),
    }),
  ),
});

/** GET /api/config/public (SPEC §2 "Pricing configuration"): creditBased or classicSaas by model. */
export const publicConfigResponse = z.object({
  model: z.enum(["credit_based", "classic_saas"]),
  currency: z.string(),
  tiers: z.array(tierPrice),
  features: z.object({
    freeTierEnabled: z.boolean(),
    bonusCreditsEnabled: z.boolean(),
    aiChatEnabled: z.boolean(),
    aiAudioInputEnabled: z.boolean(),
    aiImageGenEnabled: z.boolean(),
    aiContentGenEnabled: z.boolean(),
    aiRagChatEnabled: z.boolean(),
    /** false: nothing can be bought (PAYMENTS_ENABLED=false); the payment routes answer 503 payments_disabled. */
    paymentsEnabled: z.boolean(),
  }),
  tierVisibility: perTier(z.boolean()),
  creditBased: z
    .object({
      monthlyCredits: perTier(z.number()),
      creditCosts: z.record(z.string(), z.number()),
      bonusCreditsEnabled: z.boolean(),
      bonusPackages: perTier(z.array(z.object({ credits: z.number(), price: z.number() }))),
      bonusMonthlyLimits: perTier(z.number()),
      bonusExpiryDays: z.number(),
      userToggleEnabled: z.boolean(),
      aiPricing: aiPricing.optional(),
    })
    .optional(),
  classicSaas: z.object({ trialDays: z.number(), yearlyPrices: perTier(z.number()) }).optional(),
});

/** GET /api/pricing/config: the full catalog (DESIGN §4 "Pricing config"). */
export const pricingConfigResponse = z.object({
  model: z.enum(["credit_based", "classic_saas"]),
  currency: z.string(),
  trialDays: z.number(),
  bonusExpiryDays: z.number(),
  creditCosts: z.record(z.string(), z.number()),
  tiers: z.array(
    tierPrice.extend({
      monthlyCredits: z.number(),
      variants: z.object({ monthly: z.string(), yearly: z.string() }),
      bonusPackages: z.array(z.object({ credits: z.number(), price: z.number(), variantId: z.string() })),
      bonusMonthlyLimit: z.number(),
    }),
  ),
});
