import { timingSafeEqual } from "node:crypto";
import { env } from "@/lib/config/env";
import { flags } from "@/lib/config/flags";
import { pricingCatalog } from "@/lib/config/pricing";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { simulatorEnabled } from "./payment-provider/payment-provider";

function keyMatches(given: string | null | undefined): boolean {
  const expected = env().DEBUG_KEY;
  if (!expected || !given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * GET /api/payments/debug (development only; the route answers 404 in production): the payment
 * configuration (which settings are set, never their values), the catalog's variants, and the
 * caller's subscriptions and recent payment deliveries, or with ?key=DEBUG_KEY the newest overall.
 */
export async function getPaymentsDebug(input: { userId: string | null; key?: string | null }) {
  if (!input.userId && !keyMatches(input.key))
    throw new AppError("unauthorized", "Authentication required: sign in or pass ?key=<DEBUG_KEY>");
  const e = env();
  const prisma = await db();
  const userFilter = input.userId ? { userId: input.userId } : {};
  const user = input.userId
    ? await prisma.user.findUnique({
        where: { id: input.userId },
        select: { id: true, email: true, tier: true, billingPeriod: true, downgradeCount: true, hasUsedTrial: true },
      })
    : null;
  const subscriptions = await prisma.subscription.findMany({ where: userFilter, orderBy: { createdAt: "desc" }, take: 20 });
  const deliveries = await prisma.webhookDelivery.findMany({
    where: {
      source: "payment",
      ...(user?.email ? { OR: [{ userRef: user.id }, { userEmail: user.email }] } : input.userId ? { userRef: input.userId } : {}),
    },
    orderBy: { receivedAt: "desc" },
    take: 30,
    select: {
      id: true,
      eventType: true,
      status: true,
      error: true,
      objectId: true,
      userEmail: true,
      occurredAt: true,
      receivedAt: true,
      processedAt: true,
    },
  });
  return {
    environment: e.appEnv,
    provider: e.LEMONSQUEEZY_API_KEY ? "lemonsqueezy" : simulatorEnabled() ? "simulator" : "none",
    settings: {
      LEMONSQUEEZY_API_KEY: Boolean(e.LEMONSQUEEZY_API_KEY),
      LEMONSQUEEZY_STORE_ID: Boolean(e.LEMONSQUEEZY_STORE_ID),
      LEMONSQUEEZY_API_URL: e.LEMONSQUEEZY_API_URL ?? null,
      PAYMENT_WEBHOOK_SECRET: Boolean(e.PAYMENT_WEBHOOK_SECRET),
    },
    pricingModel: flags().pricingModel,
    bonusCredits: flags().bonusCredits,
    catalog: pricingCatalog().tiers.map((t) => ({
      tier: t.key,
      variants: t.variants,
      bonusPackages: t.bonusPackages.map((p) => p.variantId),
    })),
    user,
    subscriptions,
    deliveries,
  };
}
