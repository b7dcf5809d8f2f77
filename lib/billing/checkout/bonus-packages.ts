import { tierConfig, type BonusPackage } from "@/lib/config/pricing";
import { monthlyBonusPurchased } from "@/lib/credits";
import { currentSubscription } from "../subscriptions/current-subscription";
import { requireUser } from "@/lib/users/require-user";

export interface BonusPackagesView {
  enabled: true;
  packages: BonusPackage[];
  monthlyLimit: number;
  monthlyPurchasedCredits: number;
  canPurchaseMore: boolean;
  tier: string;
}

/** The user's tier: their current subscription's, else free. */
export async function currentTier(userId: string): Promise<string> {
  return (await currentSubscription(userId))?.tier ?? "free";
}

/** GET /api/credits/bonus-packages: the tier's packages and this calendar month's purchase room. */
export async function getBonusPackages(userId: string, now = new Date()): Promise<BonusPackagesView> {
  await requireUser(userId);
  const tier = await currentTier(userId);
  const config = tierConfig(tier);
  const purchased = await monthlyBonusPurchased(userId, now);
  return {
    enabled: true,
    packages: config.bonusPackages.map(({ credits, price, variantId }) => ({ credits, price, variantId })),
    monthlyLimit: config.bonusMonthlyLimit,
    monthlyPurchasedCredits: purchased,
    canPurchaseMore: purchased < config.bonusMonthlyLimit,
    tier,
  };
}
