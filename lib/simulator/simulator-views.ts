import { flags } from "@/lib/config/flags";
import { pricingCatalog } from "@/lib/config/pricing";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { cancelSubscription } from "@/lib/billing/subscriptions/cancel-subscription";
import { changePlan } from "@/lib/billing/subscriptions/change-plan";
import { readSimulatedCheckout, type SimulatedPortalAccess } from "@/lib/billing/payment-provider/checkout-simulator";
import { simulatorEnabled } from "@/lib/billing/payment-provider/payment-provider";
import { resumeSubscription } from "@/lib/billing/subscriptions/resume-subscription";
import { verifySimulatorToken } from "@/lib/billing/payment-provider/simulator-token";
import { simulatePaymentFailure, simulatePaymentRecovery, simulateRenewal } from "./simulate-subscription-payment";

/** What the simulator's checkout page shows (null: unknown, forged or expired checkout). */
export async function describeSimulatedCheckout(id: string) {
  const read = readSimulatedCheckout(id);
  if (!read) return null;
  const { checkout, match } = read;
  const currency = pricingCatalog().currency;
  const prisma = await db();
  const user = checkout.userId
    ? await prisma.user.findUnique({ where: { id: checkout.userId }, select: { email: true, hasUsedTrial: true } })
    : null;
  const email = checkout.email ?? user?.email ?? null;
  if (match.kind === "bonus") {
    return {
      id,
      kind: "bonus" as const,
      title: `${match.bonusPackage.credits.toLocaleString("en-US")} bonus credits`,
      detail: `One-time purchase for the ${match.tier.name} plan`,
      price: match.bonusPackage.price,
      currency,
      email,
      needsEmail: !email,
      discountCode: checkout.discountCode ?? null,
      cancelUrl: checkout.cancelUrl ?? "/",
      trialDays: 0,
    };
  }
  const trialDays = flags().pricingModel === "classic_saas" && !user?.hasUsedTrial ? pricingCatalog().trialDays : 0;
  return {
    id,
    kind: "plan" as const,
    title: `${match.tier.name} plan, billed ${match.billingPeriod}`,
    detail: `${match.tier.monthlyCredits.toLocaleString("en-US")} credits per month`,
    price: match.billingPeriod === "yearly" ? match.tier.yearlyPrice : match.tier.monthlyPrice,
    currency,
    email,
    needsEmail: !email,
    discountCode: checkout.discountCode ?? null,
    cancelUrl: checkout.cancelUrl ?? "/",
    trialDays,
  };
}

function readPortalToken(token: string | null | undefined): SimulatedPortalAccess | null {
  const access = verifySimulatorToken<SimulatedPortalAccess & Record<string, unknown>>(token);
  return access && typeof access.sub === "string" && typeof access.uid === "string" ? access : null;
}

/** What the simulator's billing portal shows for a signed portal token (null: forged or expired). */
export async function loadSimulatedPortal(token: string | null | undefined) {
  const access = readPortalToken(token);
  if (!access) return null;
  const prisma = await db();
  const sub = await prisma.subscription.findFirst({
    where: { providerSubscriptionId: access.sub, userId: access.uid },
    include: { user: { select: { email: true, downgradeCount: true } } },
  });
  if (!sub) return null;
  const catalog = pricingCatalog();
  const plans = catalog.tiers
    .filter((t) => t.key !== "free")
    .flatMap((t) =>
      (["monthly", "yearly"] as const).map((period) => ({
        variantId: t.variants[period],
        label: `${t.name} ${period} (${catalog.currency} ${period === "yearly" ? t.yearlyPrice : t.monthlyPrice})`,
        current: t.variants[period] === sub.variantId,
      })),
    );
  return {
    token: token as string,
    email: sub.user.email,
    downgradeCount: sub.user.downgradeCount,
    subscription: {
      id: sub.providerSubscriptionId,
      status: sub.status,
      tier: sub.tier,
      billingPeriod: sub.billingPeriod,
      variantId: sub.variantId,
      currentPeriodEnd: sub.currentPeriodEnd?.toISOString() ?? null,
      trialEndsAt: sub.trialEndsAt?.toISOString() ?? null,
      endsAt: sub.endsAt?.toISOString() ?? null,
      paymentFailed: sub.paymentFailedAt !== null,
    },
    plans,
  };
}

export const PORTAL_ACTIONS = ["cancel", "resume", "change_plan", "renew", "fail_payment", "recover_payment"] as const;
export type PortalAction = (typeof PORTAL_ACTIONS)[number];

/**
 * A portal action for the token's subscription: cancel, resume and plan changes through the same
 * billing functions as the API (answered at once, as Lemon Squeezy's API answers); the payment
 * actions deliver the signed webhooks a real provider would send.
 */
export async function runSimulatedPortalAction(input: {
  token: string;
  action: PortalAction;
  variantId?: string;
  requestUrl: string;
}): Promise<string> {
  const access = readPortalToken(input.token);
  if (!access) throw new AppError("not_found", "Portal session not found or expired");
  if (!simulatorEnabled()) throw new AppError("not_found", "Not found");
  const { uid: userId, sub } = access;
  const prisma = await db();
  const owned = await prisma.subscription.findFirst({ where: { providerSubscriptionId: sub, userId }, select: { id: true } });
  if (!owned) throw new AppError("not_found", "Portal session not found or expired");
  switch (input.action) {
    case "cancel":
      return (await cancelSubscription({ userId, requestUrl: input.requestUrl })).message;
    case "resume":
      await resumeSubscription({ userId, requestUrl: input.requestUrl });
      return "Subscription resumed";
    case "change_plan":
      if (!input.variantId) throw new AppError("validation_failed", "Invalid body: variantId: is required");
      return (await changePlan({ userId, newVariantId: input.variantId, requestUrl: input.requestUrl })).message;
    case "renew":
      await simulateRenewal(sub);
      return "Renewal payment simulated";
    case "fail_payment":
      await simulatePaymentFailure(sub);
      return "Failed payment simulated";
    case "recover_payment":
      await simulatePaymentRecovery(sub);
      return "Payment recovery simulated";
  }
}
