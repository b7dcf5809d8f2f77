import { z } from "zod";

/**
 * The shape of PRICING_CONFIG: any part of the built-in catalog, per tier (lib/config/pricing.ts
 * deep-merges it). Checked at start-up with every other setting, so a typo stops the server with its
 * path named instead of answering 500 on the pricing endpoints later. Edge-safe.
 */
const money = z.number().nonnegative().max(1_000_000);
const variantId = z.union([z.string().min(1).max(100), z.number().int().nonnegative()]).transform(String);
const bonusPackage = z.strictObject({ credits: z.number().int().positive(), price: money, variantId });

export const tierOverrideSchema = z.strictObject({
  name: z.string().min(1).max(100).optional(),
  monthlyPrice: money.optional(),
  yearlyPrice: money.optional(),
  monthlyCredits: z.number().int().nonnegative().optional(),
  variants: z.strictObject({ monthly: variantId.optional(), yearly: variantId.optional() }).optional(),
  bonusPackages: z.array(bonusPackage).max(2, "at most 2 bonus packages per tier").optional(),
  bonusMonthlyLimit: z.number().int().nonnegative().optional(),
});

export const pricingOverrideSchema = z.strictObject({
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, "must be an ISO 4217 code such as USD")
    .optional(),
  trialDays: z.number().int().min(0).max(365).optional(),
  bonusExpiryDays: z.number().int().min(1).max(3650).optional(),
  tiers: z
    .partialRecord(
      z.enum(["free", "basic", "pro", "enterprise"], { error: "tiers are free, basic, pro and enterprise" }),
      tierOverrideSchema,
    )
    .optional(),
});

export type PricingOverride = z.infer<typeof pricingOverrideSchema>;
