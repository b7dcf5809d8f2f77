import { recordOrganisationEvent } from "@/lib/audit/record-organisation-event";
import { pricingCatalog, tierConfig } from "@/lib/config/pricing";
import { db } from "@/lib/db/client";
import { getCreditSummary } from "@/lib/credits";
import { AppError } from "@/lib/errors";
import type { AutoRecharge, AutoRechargeSettings } from "@/lib/generated/prisma/client";
import { currentTier } from "../checkout/bonus-packages";
import { paymentProvider } from "../payment-provider/payment-provider";
import { StripePaymentProvider } from "../payment-provider/stripe-client";
import { stripeCustomerOf } from "../payment-provider/stripe-customer";

export interface AutoRechargeInput {
  enabled: boolean;
  threshold: number;
  variantId: string;
  monthlyMaxCount: number;
  /** Cents. */
  monthlyMaxAmount: number;
}

export interface AutoRechargeView {
  available: boolean;
  /** Why auto-recharge cannot be used here (the provider, no saved card yet), when it cannot. */
  unavailableReason: string | null;
  settings: {
    enabled: boolean;
    threshold: number;
    variantId: string;
    credits: number;
    amount: number;
    currency: string;
    monthlyMaxCount: number;
    monthlyMaxAmount: number;
    pausedAt: string | null;
    pausedReason: string | null;
  } | null;
  card: string | null;
  packages: Array<{ variantId: string; credits: number; price: number }>;
  thisMonth: { count: number; amount: number };
  recent: Array<{
    id: string;
    status: string;
    credits: number;
    amount: number;
    createdAt: string;
    finishedAt: string | null;
    error: string | null;
  }>;
}

const LEMON_SQUEEZY_CANNOT =
  "Auto-recharge needs Stripe (PAYMENT_PROVIDER=stripe): Lemon Squeezy cannot charge a saved card without the buyer, so buy packs by hand there";

const monthKey = (at = new Date()) => at.toISOString().slice(0, 7);

function stripe(): StripePaymentProvider | null {
  const provider = paymentProvider();
  return provider instanceof StripePaymentProvider ? provider : null;
}

function settingsView(s: AutoRechargeSettings | null): AutoRechargeView["settings"] {
  if (!s) return null;
  return {
    enabled: s.enabled,
    threshold: s.threshold,
    variantId: s.variantId,
    credits: s.credits,
    amount: s.amount,
    currency: s.currency,
    monthlyMaxCount: s.monthlyMaxCount,
    monthlyMaxAmount: s.monthlyMaxAmount,
    pausedAt: s.pausedAt?.toISOString() ?? null,
    pausedReason: s.pausedReason,
  };
}

const rechargeView = (r: AutoRecharge) => ({
  id: r.id,
  status: r.status,
  credits: r.credits,
  amount: r.amount,
  createdAt: r.createdAt.toISOString(),
  finishedAt: r.finishedAt?.toISOString() ?? null,
  error: r.error,
});

/** GET /api/credits/auto-recharge: the settings, the saved card, the packs to choose from and this month's top-ups. */
export async function getAutoRecharge(accountId: string): Promise<AutoRechargeView> {
  const prisma = await db();
  const [settings, recent, tier] = await Promise.all([
    prisma.autoRechargeSettings.findUnique({ where: { accountId } }),
    prisma.autoRecharge.findMany({ where: { accountId }, orderBy: { createdAt: "desc" }, take: 10 }),
    currentTier(accountId),
  ]);
  const month = await prisma.autoRecharge.aggregate({
    where: { accountId, month: monthKey(), status: { not: "failed" } },
    _count: true,
    _sum: { amount: true },
  });
  const provider = stripe();
  const customer = provider ? await stripeCustomerOf(accountId) : null;
  const card = provider && customer ? ((await provider.savedCard(customer))?.label ?? null) : null;
  return {
    available: Boolean(provider && card),
    unavailableReason: !provider
      ? LEMON_SQUEEZY_CANNOT
      : card
        ? null
        : "No saved card yet: buy a credit pack once and its card is saved for auto-recharge",
    settings: settingsView(settings),
    card,
    packages: tierConfig(tier).bonusPackages.map(({ variantId, credits, price }) => ({ variantId, credits, price })),
    thisMonth: { count: month._count, amount: month._sum.amount ?? 0 },
    recent: recent.map(rechargeView),
  };
}

/**
 * PUT /api/credits/auto-recharge (the account's owner or admins): turning it on needs Stripe and a
 * saved card (409 otherwise), a pack of the account's tier (400), and a monthly amount that allows
 * one top-up (400). Turning it on again clears a pause left by a failed top-up, and turning it on
 * with the balance already under the threshold claims a top-up at once.
 */
export async function updateAutoRecharge(accountId: string, byUserId: string, input: AutoRechargeInput): Promise<AutoRechargeView> {
  const provider = stripe();
  if (!provider && input.enabled) throw new AppError("conflict", LEMON_SQUEEZY_CANNOT);
  const tier = tierConfig(await currentTier(accountId));
  const pack = tier.bonusPackages.find((p) => p.variantId === input.variantId);
  if (!pack) {
    throw new AppError(
      "validation_failed",
      tier.bonusPackages.length
        ? `Invalid body: variantId: ${input.variantId} is not a bonus package of the ${tier.name} tier`
        : `Invalid body: variantId: the ${tier.name} tier has no bonus packages to recharge with`,
      { param: "variantId" },
    );
  }
  const amount = Math.round(pack.price * 100);
  if (input.monthlyMaxAmount < amount) {
    throw new AppError(
      "validation_failed",
      `Invalid body: monthlyMaxAmount: ${input.monthlyMaxAmount} cents is less than one top-up (${amount} cents)`,
      { param: "monthlyMaxAmount" },
    );
  }
  if (input.enabled) {
    const customer = await stripeCustomerOf(accountId);
    const card = customer && provider ? await provider.savedCard(customer) : null;
    if (!card)
      throw new AppError(
        "conflict",
        "No saved card: buy a credit pack once (its card is saved for auto-recharge), then turn auto-recharge on",
      );
  }
  const data = {
    enabled: input.enabled,
    threshold: input.threshold,
    variantId: pack.variantId,
    credits: pack.credits,
    amount,
    currency: pricingCatalog().currency,
    monthlyMaxCount: input.monthlyMaxCount,
    monthlyMaxAmount: input.monthlyMaxAmount,
    updatedBy: byUserId,
    updatedAt: new Date(),
    // Saving with it on is the owner's answer to a pause (a new card, a higher limit).
    ...(input.enabled ? { pausedAt: null, pausedReason: null } : {}),
  };
  const prisma = await db();
  await prisma.$transaction(async (tx) => {
    await tx.autoRechargeSettings.upsert({ where: { accountId }, create: { accountId, ...data }, update: data });
    await recordOrganisationEvent(tx, {
      accountId,
      actorId: byUserId,
      action: "wallet.auto_recharge_changed",
      targetType: "wallet",
      details: {
        enabled: data.enabled,
        threshold: data.threshold,
        variantId: data.variantId,
        monthlyMaxCount: data.monthlyMaxCount,
        monthlyMaxAmount: data.monthlyMaxAmount,
      },
    });
  });
  // Already under the threshold: no charge will cross it, so the top-up is claimed now (same limits);
  // each server's loop pays it within seconds.
  if (input.enabled) {
    // The balance a charge's ledger row shows (balance_after): subscription credits and every held pack.
    const { subscriptionCredits, bonusCredits } = await getCreditSummary(accountId);
    await prisma.$queryRaw`SELECT claim_auto_recharge_for(${accountId}::text, ${subscriptionCredits + bonusCredits}::int)`;
  }
  return getAutoRecharge(accountId);
}
