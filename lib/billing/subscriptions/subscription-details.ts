import type { z } from "zod";
import { planLimits, tierConfig } from "@/lib/config/pricing";
import type { subscriptionDetailsResponse } from "../schemas";
import { currentSubscription } from "./current-subscription";
import { requireUser } from "@/lib/users/require-user";

export type SubscriptionDetails = z.infer<typeof subscriptionDetailsResponse>;

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
