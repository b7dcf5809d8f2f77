import { tierConfig } from "@/lib/config/pricing";
import { monthlyBonusPurchased } from "@/lib/credits";
import { AppError } from "@/lib/errors";
import { appBaseUrl } from "@/lib/config/public-url";
import { currentTier } from "./bonus-packages";
import { paymentProvider } from "../payment-provider/payment-provider";
import { requireUser } from "@/lib/users/require-user";
import { providerCustomerOf } from "./provider-customer";

export const BONUS_REDIRECT = "/dashboard/credits?purchase=success";

/**
 * POST /api/credits/checkout: a checkout for one of the tier's bonus packages when the calendar
 * month's purchases plus this package stay within the tier's monthly limit (403 otherwise). The
 * order_created event grants the credits; the buyer lands on /dashboard/credits?purchase=success.
 */
export async function createBonusCheckout(input: {
  userId: string;
  variantId: string;
  requestUrl: string;
  buyerEmail?: string | null;
}): Promise<{ checkoutUrl: string }> {
  const user = await requireUser(input.userId);
  const tier = tierConfig(await currentTier(user.id));
  const pkg = tier.bonusPackages.find((p) => p.variantId === input.variantId);
  if (!pkg) {
    throw new AppError(
      "validation_failed",
      tier.bonusPackages.length
        ? `Invalid variant: ${input.variantId} is not a bonus package of the ${tier.name} tier`
        : `Invalid variant: the ${tier.name} tier has no bonus packages`,
    );
  }
  const purchased = await monthlyBonusPurchased(user.id);
  if (purchased + pkg.credits > tier.bonusMonthlyLimit) {
    throw new AppError(
      "limit_reached",
      `Monthly bonus purchase limit reached: ${purchased} of ${tier.bonusMonthlyLimit} credits bought this month; this package adds ${pkg.credits}`,
    );
  }
  const base = appBaseUrl(input.requestUrl);
  const { url } = await paymentProvider(input.requestUrl).createCheckout({
    variantId: pkg.variantId,
    userId: user.id,
    email: user.email ?? input.buyerEmail ?? null,
    name: user.name,
    redirectUrl: `${base}${BONUS_REDIRECT}`,
    cancelUrl: `${base}/dashboard/credits`,
    custom: { kind: "bonus" },
    customerId: await providerCustomerOf(user.id),
  });
  return { checkoutUrl: url };
}
