import { env } from "./env";
import type { PricingOverride } from "./pricing-schema";

/**
 * The pricing catalog: tiers, prices, provider variant ids, monthly credit allocations, bonus packages,
 * monthly bonus limits, trial days and bonus expiry. Defaults work with the local checkout simulator
 * (variant ids "local-..."); PRICING_CONFIG (JSON, deep-merged per tier) overrides any part of it.
 * Edge-safe: pure data and env reads.
 */
export const TIER_KEYS = ["free", "basic", "pro", "enterprise"] as const;
export type TierKey = (typeof TIER_KEYS)[number];
export type BillingPeriod = "monthly" | "yearly";

export interface BonusPackage {
  credits: number;
  price: number;
  variantId: string;
}

export interface PlanLimits {
  monthlyCredits: number;
  bonusMonthlyLimit: number;
  maxUploadBytes: number;
  batchChatSize: number;
}

export interface TierConfig {
  key: TierKey;
  name: string;
  monthlyPrice: number;
  yearlyPrice: number;
  monthlyCredits: number;
  variants: { monthly: string; yearly: string };
  bonusPackages: BonusPackage[];
  bonusMonthlyLimit: number;
}

export interface PricingCatalog {
  currency: string;
  trialDays: number;
  bonusExpiryDays: number;
  tiers: TierConfig[];
}

/** Credits charged per AI operation (SPEC §8). RAG's variable cost lives in lib/rag. */
export const CREDIT_COSTS = {
  chat: 15,
  streamText: 20,
  streamImage: 30,
  speechToText: 20,
  imageGeneration: 80,
  contentGeneration: 25,
  /** The OpenAI-compatible API's embeddings call (not in SPEC §8): one credit a call, inputs bounded by what it pays for. */
  embeddings: 1,
} as const;

const DEFAULT_CATALOG: PricingCatalog = {
  currency: "USD",
  trialDays: 14,
  bonusExpiryDays: 365,
  tiers: [
    {
      key: "free",
      name: "Free",
      monthlyPrice: 0,
      yearlyPrice: 0,
      monthlyCredits: 200,
      variants: { monthly: "", yearly: "" },
      bonusPackages: [],
      bonusMonthlyLimit: 0,
    },
    {
      key: "basic",
      name: "Basic",
      monthlyPrice: 9.99,
      yearlyPrice: 99,
      monthlyCredits: 1000,
      variants: { monthly: "local-basic-monthly", yearly: "local-basic-yearly" },
      bonusPackages: [
        { credits: 500, price: 4.99, variantId: "local-bonus-basic-500" },
        { credits: 1200, price: 9.99, variantId: "local-bonus-basic-1200" },
      ],
      bonusMonthlyLimit: 2400,
    },
    {
      key: "pro",
      name: "Pro",
      monthlyPrice: 29.99,
      yearlyPrice: 299,
      monthlyCredits: 5000,
      variants: { monthly: "local-pro-monthly", yearly: "local-pro-yearly" },
      bonusPackages: [
        { credits: 2000, price: 14.99, variantId: "local-bonus-pro-2000" },
        { credits: 5000, price: 29.99, variantId: "local-bonus-pro-5000" },
      ],
      bonusMonthlyLimit: 10000,
    },
    {
      key: "enterprise",
      name: "Enterprise",
      monthlyPrice: 99.99,
      yearlyPrice: 999,
      monthlyCredits: 20000,
      variants: { monthly: "local-enterprise-monthly", yearly: "local-enterprise-yearly" },
      bonusPackages: [
        { credits: 10000, price: 49.99, variantId: "local-bonus-enterprise-10000" },
        { credits: 25000, price: 99.99, variantId: "local-bonus-enterprise-25000" },
      ],
      bonusMonthlyLimit: 50000,
    },
  ],
};

let cached: { source: PricingOverride | undefined; catalog: PricingCatalog } | undefined;

/** The built-in catalog with PRICING_CONFIG's overrides (parsed and checked with every other setting, lib/config/env.ts). */
export function pricingCatalog(): PricingCatalog {
  const source = env().PRICING_CONFIG;
  if (cached && cached.source === source) return cached.catalog;
  const catalog = source ? mergeCatalog(DEFAULT_CATALOG, source) : DEFAULT_CATALOG;
  cached = { source, catalog };
  return catalog;
}

type CatalogOverride = PricingOverride;

function mergeCatalog(base: PricingCatalog, override: CatalogOverride): PricingCatalog {
  return {
    currency: override.currency ?? base.currency,
    trialDays: override.trialDays ?? base.trialDays,
    bonusExpiryDays: override.bonusExpiryDays ?? base.bonusExpiryDays,
    tiers: base.tiers.map((tier) => {
      const patch = override.tiers?.[tier.key] ?? {};
      return {
        ...tier,
        ...patch,
        key: tier.key,
        variants: { ...tier.variants, ...(patch.variants ?? {}) },
        bonusPackages: (patch.bonusPackages ?? tier.bonusPackages).slice(0, 2),
      };
    }),
  };
}

export function tierConfig(key: string): TierConfig {
  const tier = pricingCatalog().tiers.find((t) => t.key === key);
  return tier ?? pricingCatalog().tiers[0];
}

export function isTierKey(value: string): value is TierKey {
  return (TIER_KEYS as readonly string[]).includes(value);
}

export type VariantMatch =
  { kind: "plan"; tier: TierConfig; billingPeriod: BillingPeriod } | { kind: "bonus"; tier: TierConfig; bonusPackage: BonusPackage };

/** Finds what a provider variant id sells: a plan (tier + period) or a bonus package. */
export function findVariant(variantId: string | number | null | undefined): VariantMatch | undefined {
  if (variantId === null || variantId === undefined || variantId === "") return undefined;
  const id = String(variantId);
  for (const tier of pricingCatalog().tiers) {
    if (tier.variants.monthly === id) return { kind: "plan", tier, billingPeriod: "monthly" };
    if (tier.variants.yearly === id) return { kind: "plan", tier, billingPeriod: "yearly" };
    const bonusPackage = tier.bonusPackages.find((p) => p.variantId === id);
    if (bonusPackage) return { kind: "bonus", tier, bonusPackage };
  }
  return undefined;
}

export function planLimits(key: string): PlanLimits {
  const tier = tierConfig(key);
  return {
    monthlyCredits: tier.monthlyCredits,
    bonusMonthlyLimit: tier.bonusMonthlyLimit,
    maxUploadBytes: env().UPLOAD_MAX_BYTES,
    batchChatSize: 10,
  };
}

/** Settings the catalog still needs (names only, never values); empty when complete. */
export function missingPricingSettings(): string[] {
  const missing: string[] = [];
  const e = env();
  // Simulator ids ("local-...") mean nothing to a real store: Lemon Squeezy, or Stripe's own API (not a local simulator).
  const realStore =
    Boolean(e.LEMONSQUEEZY_API_KEY) || (e.PAYMENT_PROVIDER === "stripe" && Boolean(e.STRIPE_SECRET_KEY) && !e.STRIPE_API_BASE);
  const catalog = pricingCatalog();
  if (!catalog.currency) missing.push("currency");
  for (const tier of catalog.tiers) {
    if (tier.key === "free") continue;
    for (const period of ["monthly", "yearly"] as const) {
      const id = tier.variants[period];
      if (!id || (realStore && id.startsWith("local-"))) missing.push(`tiers.${tier.key}.variants.${period}`);
    }
    tier.bonusPackages.forEach((pkg, i) => {
      if (!pkg.variantId || (realStore && pkg.variantId.startsWith("local-")))
        missing.push(`tiers.${tier.key}.bonusPackages[${i}].variantId`);
    });
    if (!(tier.monthlyPrice > 0)) missing.push(`tiers.${tier.key}.monthlyPrice`);
  }
  return missing;
}
