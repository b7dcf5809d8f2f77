import { planLimits, tierConfig, type PlanLimits } from "@/lib/config/pricing";
import { currentSubscription } from "./current-subscription";
import { requireUser } from "./session-user";

export interface SubscriptionDetails {
  subscription: {
    id: string;
    status: string;
    variantId: string;
    currentPeriodEnd: string | null;
    trialEndsAt: string | null;
    endsAt: string | null;
    paymentFailed: boolean;
  } | null;
  hasActiveSubscription: boolean;
  tier: string;
  billingPeriod: string;
  planName: string;
  isFreePlan: boolean;
  user: { downgradeCount: number; hasUsedTrial: boolean };
  limits: PlanLimits;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** GET /api/payments/subscription: the current subscription (null when none), plan and its limits. */
export async function getSubscriptionDetails(userId: string): Promise<SubscriptionDetails> {
  const user = await requireUser(userId);
  const sub = await currentSubscription(userId);
  const tier = sub?.tier ?? "free";
  return {
    subscription: sub
      ? {
          id: sub.id,
          status: sub.status,
          variantId: sub.variantId,
          currentPeriodEnd: iso(sub.currentPeriodEnd),
          trialEndsAt: iso(sub.trialEndsAt),
          endsAt: iso(sub.endsAt),
          paymentFailed: sub.paymentFailedAt !== null,
        }
      : null,
    hasActiveSubscription: sub !== null,
    tier,
    billingPeriod: sub?.billingPeriod ?? "monthly",
    planName: tierConfig(tier).name,
    isFreePlan: sub === null,
    user: { downgradeCount: user.downgradeCount, hasUsedTrial: user.hasUsedTrial },
    limits: planLimits(tier),
  };
}
