import { CREDIT_COSTS, pricingCatalog, TIER_KEYS } from "./pricing";
import { flags } from "./flags";

/**
 * The public pricing configuration of GET /api/config/public. Edge-safe. Contains no variant ids or
 * secrets beyond what a pricing page shows.
 */
export function publicConfig() {
  const f = flags();
  const catalog = pricingCatalog();
  const visibleTiers = catalog.tiers.filter((t) => t.key !== "free" || f.freeTier);
  const base = {
    model: f.pricingModel,
    currency: catalog.currency,
    tiers: visibleTiers.map((t) => ({ key: t.key, name: t.name, monthlyPrice: t.monthlyPrice, yearlyPrice: t.yearlyPrice })),
    features: {
      freeTierEnabled: f.freeTier,
      bonusCreditsEnabled: f.bonusCredits,
      aiChatEnabled: f.aiChat,
      aiAudioInputEnabled: f.aiAudio,
      aiImageGenEnabled: f.aiImage,
      aiContentGenEnabled: f.aiContent,
      aiRagChatEnabled: f.aiRag,
      paymentsEnabled: f.payments,
    },
    tierVisibility: Object.fromEntries(TIER_KEYS.map((k) => [k, k !== "free" || f.freeTier])) as Record<string, boolean>,
  };
  if (f.creditBased) {
    return {
      ...base,
      creditBased: {
        monthlyCredits: Object.fromEntries(catalog.tiers.map((t) => [t.key, t.monthlyCredits])),
        creditCosts: CREDIT_COSTS,
        bonusCreditsEnabled: f.bonusCredits,
        bonusPackages: f.bonusCredits
          ? Object.fromEntries(catalog.tiers.map((t) => [t.key, t.bonusPackages.map((p) => ({ credits: p.credits, price: p.price }))]))
          : {},
        bonusMonthlyLimits: Object.fromEntries(catalog.tiers.map((t) => [t.key, t.bonusMonthlyLimit])),
        bonusExpiryDays: catalog.bonusExpiryDays,
        userToggleEnabled: f.creditsUserToggle,
      },
    };
  }
  return {
    ...base,
    classicSaas: {
      trialDays: catalog.trialDays,
      yearlyPrices: Object.fromEntries(catalog.tiers.map((t) => [t.key, t.yearlyPrice])),
    },
  };
}

/** The full catalog of GET /api/pricing/config (DESIGN.md §4). */
export function fullPricingConfig() {
  const f = flags();
  const catalog = pricingCatalog();
  return {
    model: f.pricingModel,
    currency: catalog.currency,
    trialDays: catalog.trialDays,
    bonusExpiryDays: catalog.bonusExpiryDays,
    creditCosts: CREDIT_COSTS,
    tiers: catalog.tiers.map((t) => ({
      key: t.key,
      name: t.name,
      monthlyPrice: t.monthlyPrice,
      yearlyPrice: t.yearlyPrice,
      monthlyCredits: t.monthlyCredits,
      variants: t.variants,
      bonusPackages: t.bonusPackages,
      bonusMonthlyLimit: t.bonusMonthlyLimit,
    })),
  };
}
