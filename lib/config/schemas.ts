import { z } from "zod";

/** Response shapes of the configuration endpoints. */

const tierPrice = z.object({ key: z.string(), name: z.string(), monthlyPrice: z.number(), yearlyPrice: z.number() });
const perTier = <T extends z.ZodType>(value: T) => z.record(z.string(), value);

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
