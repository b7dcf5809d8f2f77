import { flags } from "@/lib/config/flags";
import { findVariant, isTierKey, pricingCatalog, tierConfig, type BillingPeriod } from "@/lib/config/pricing";
import { AppError } from "@/lib/errors";
import { appBaseUrl, sameOriginUrl } from "@/lib/config/public-url";
import { runningSubscription } from "../subscriptions/current-subscription";
import { paymentProvider } from "../payment-provider/payment-provider";
import { requireUser } from "@/lib/users/require-user";
import { providerCustomerOf } from "./provider-customer";

export const DEFAULT_PLAN_REDIRECT = "/dashboard?checkout=success";

export interface PlanCheckoutInput {
  userId: string;
  variantId: string;
  /** create-url's tier: must be the tier the variant belongs to. */
  tier?: string;
  redirectUrl?: string;
  cancelUrl?: string;
  discountCode?: string;
  requestUrl: string;
  /** The buyer's email when the account has none (an organisation: the member buying for it), to prefill the checkout. */
  buyerEmail?: string | null;
}

function planVariant(variantId: string) {
  const match = findVariant(variantId);
  if (!match) throw new AppError("validation_failed", `Invalid variant: ${variantId} is not a plan of the pricing catalog`);
  if (match.kind !== "plan")
    throw new AppError("validation_failed", `Invalid variant: ${variantId} is a bonus package; use POST /api/credits/checkout`);
  return match;
}

function returnUrl(candidate: string | undefined, fallback: string, base: string, field: string): string {
  if (candidate === undefined || candidate === "") return `${base}${fallback}`;
  const resolved = sameOriginUrl(candidate, base);
  if (!resolved) throw new AppError("validation_failed", `Invalid body: ${field}: must be a path or an address of this app`);
  return resolved;
}

/**
 * A checkout for a plan variant, for the signed-in user (custom_data.user_id, prefilled email).
 * Return addresses must be paths or addresses of this app (never an open redirect). A user whose
 * subscription is running (not cancelled) changes plan instead (400).
 */
export async function createPlanCheckout(input: PlanCheckoutInput): Promise<{ checkoutUrl: string }> {
  const match = planVariant(input.variantId);
  if (input.tier !== undefined) {
    if (!isTierKey(input.tier) || input.tier === "free")
      throw new AppError("validation_failed", `Invalid tier: ${input.tier} (expected basic, pro or enterprise)`);
    if (match.tier.key !== input.tier)
      throw new AppError("validation_failed", `Invalid variant: ${input.variantId} belongs to tier ${match.tier.key}, not ${input.tier}`);
  }
  const user = await requireUser(input.userId);
  const base = appBaseUrl(input.requestUrl);
  const redirectUrl = returnUrl(input.redirectUrl, DEFAULT_PLAN_REDIRECT, base, "redirectUrl");
  const cancelUrl = returnUrl(input.cancelUrl, "/pricing", base, "cancelUrl");
  const current = await runningSubscription(user.id);
  if (current) {
    throw new AppError(
      "validation_failed",
      `Already subscribed to the ${tierConfig(current.tier).name} plan: use POST /api/payments/change-plan to switch plans`,
    );
  }
  const { url } = await paymentProvider(input.requestUrl).createCheckout({
    variantId: input.variantId,
    userId: user.id,
    email: user.email ?? input.buyerEmail ?? null,
    name: user.name,
    redirectUrl,
    cancelUrl,
    discountCode: input.discountCode || null,
    custom: { kind: "plan" },
    customerId: await providerCustomerOf(user.id),
    trialDays: trialDaysFor(user),
  });
  return { checkoutUrl: url };
}

/** The trial a plan checkout offers (classic SaaS pricing, once per account): providers that take it per checkout use it. */
function trialDaysFor(user: { hasUsedTrial: boolean }): number {
  return flags().pricingModel === "classic_saas" && !user.hasUsedTrial ? pricingCatalog().trialDays : 0;
}

/**
 * Registration-first checkout (GET /api/payments/create-checkout): no session; tier and billing pick
 * the variant. The purchase carries no user id: its events attach to the account with the buyer's
 * email, now or when that account registers.
 */
export async function createGuestCheckout(input: {
  tier: string;
  billing: BillingPeriod;
  email?: string;
  requestUrl: string;
}): Promise<{ checkoutUrl: string }> {
  if (!isTierKey(input.tier) || input.tier === "free")
    throw new AppError("validation_failed", `Invalid tier: ${input.tier} (expected basic, pro or enterprise)`);
  const variantId = tierConfig(input.tier).variants[input.billing];
  if (!variantId) throw new AppError("misconfigured", `No ${input.billing} variant is configured for tier ${input.tier}`);
  const base = appBaseUrl(input.requestUrl);
  const { url } = await paymentProvider(input.requestUrl).createCheckout({
    variantId,
    email: input.email ?? null,
    redirectUrl: `${base}/signin?callbackUrl=${encodeURIComponent(DEFAULT_PLAN_REDIRECT)}`,
    cancelUrl: `${base}/pricing`,
    custom: { kind: "plan", flow: "registration_first" },
    trialDays: trialDaysFor({ hasUsedTrial: false }),
  });
  return { checkoutUrl: url };
}
