import { TIER_KEYS, findVariant } from "@/lib/config/pricing";

/** Position of a tier in free < basic < pro < enterprise. */
export function tierRank(tier: string): number {
  return (TIER_KEYS as readonly string[]).indexOf(tier);
}

/**
 * Compares two plan variants: > 0 upgrade, < 0 downgrade, 0 same plan. A higher tier is an upgrade;
 * within a tier, yearly is an upgrade of monthly.
 */
export function comparePlans(fromVariantId: string, toVariantId: string): number {
  const from = findVariant(fromVariantId);
  const to = findVariant(toVariantId);
  if (!from || !to || from.kind !== "plan" || to.kind !== "plan") return 0;
  const byTier = tierRank(to.tier.key) - tierRank(from.tier.key);
  if (byTier !== 0) return byTier;
  const period = (p: string) => (p === "yearly" ? 1 : 0);
  return period(to.billingPeriod) - period(from.billingPeriod);
}
