import { fromEnv } from "@/lib/config/env";
import { pricingCatalog, type PricingCatalog } from "@/lib/config/pricing";

/**
 * How AI calls are priced in credits (docs/API-NOTES.md "Pricing"):
 *   AI_PRICING_MODE          flat (SPEC's fixed costs, default) | metered (by model and tokens)
 *   CREDIT_VALUE_USD         what one credit is worth; default: the lowest price a credit is sold at
 *   AI_MARKUP                provider cost x markup = price (>= 1, default 1)
 *   AI_MIN_CREDITS_PER_CALL  least credits a metered call costs (default 1)
 *   AI_FLAT_MARGIN           flat mode: the share of a flat price kept as a margin (default 0.2)
 * Edge-safe (the public configuration shows it).
 */
export type PricingMode = "flat" | "metered";

export interface PricingSettings {
  mode: PricingMode;
  creditValueUsd: number;
  /** Where the credit value comes from: the setting, or the catalog entry that sells credits cheapest. */
  creditValueSource: string;
  markup: number;
  minCreditsPerCall: number;
  /** Flat mode: a call's worst case may use at most (1 - flatMargin) of what its credits are worth. */
  flatMargin: number;
}

/**
 * The lowest price at which the pricing catalog sells a credit: over every paid plan (monthly price /
 * monthly credits, yearly price / 12 months of credits) and every bonus package. Valuing a credit at
 * anything higher could sell a call below cost to whoever bought credits the cheapest way.
 */
export function lowestCreditPrice(catalog: PricingCatalog): { usd: number; source: string } {
  let best: { usd: number; source: string } | null = null;
  const consider = (price: number, credits: number, source: string) => {
    if (!(price > 0) || !(credits > 0)) return;
    const usd = price / credits;
    if (!best || usd < best.usd) best = { usd, source };
  };
  for (const tier of catalog.tiers) {
    consider(tier.monthlyPrice, tier.monthlyCredits, `${tier.name} monthly plan`);
    consider(tier.yearlyPrice, tier.monthlyCredits * 12, `${tier.name} yearly plan`);
    for (const p of tier.bonusPackages) consider(p.price, p.credits, `${tier.name} bonus package of ${p.credits} credits`);
  }
  return best ?? { usd: 0.01, source: "no paid offer in the catalog: 1 cent" };
}

export const pricingSettings: () => PricingSettings = fromEnv((e) => {
  const derived = e.CREDIT_VALUE_USD === undefined ? lowestCreditPrice(pricingCatalog()) : null;
  return {
    mode: e.AI_PRICING_MODE,
    creditValueUsd: e.CREDIT_VALUE_USD ?? (derived as { usd: number }).usd,
    creditValueSource: derived ? derived.source : "CREDIT_VALUE_USD",
    markup: e.AI_MARKUP ?? 1,
    minCreditsPerCall: e.AI_MIN_CREDITS_PER_CALL,
    flatMargin: e.AI_FLAT_MARGIN ?? 0.2,
  };
});
