import { findVariant } from "@/lib/config/pricing";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { applyProviderAnswer } from "./apply-provider-answer";
import { currentSubscription } from "./current-subscription";
import { paymentProvider } from "../payment-provider/payment-provider";
import { requireUser } from "@/lib/users/require-user";
import { comparePlans } from "./tier-rank";

export const MAX_TRIAL_DOWNGRADES = 2;

export interface ChangePlanResult {
  success: boolean;
  message: string;
  newVariantId: string;
  subscription: { status: string; currentPeriodEnd: string | null };
}

/**
 * POST /api/payments/change-plan: moves the current subscription to another plan variant at the
 * provider. Every downgrade increments user.downgradeCount; during a trial at most 2 are allowed (one
 * conditional UPDATE, so concurrent requests cannot exceed it), the third answers 400 until the trial
 * ends. A provider failure gives the counted downgrade back.
 */
export async function changePlan(
  input: { userId: string; newVariantId: string; requestUrl: string },
  now = new Date(),
): Promise<ChangePlanResult> {
  const target = findVariant(input.newVariantId);
  if (!target || target.kind !== "plan")
    throw new AppError("validation_failed", `Invalid variant: ${input.newVariantId} is not a plan of the pricing catalog`);
  await requireUser(input.userId);
  const sub = await currentSubscription(input.userId);
  if (!sub) throw new AppError("not_found", "No subscription to change; start one with a checkout");
  if (sub.variantId === input.newVariantId)
    throw new AppError("validation_failed", `Invalid variant: the subscription is already on ${input.newVariantId}`);

  const direction = comparePlans(sub.variantId, input.newVariantId);
  const prisma = await db();
  const onTrial = sub.status === "on_trial" && (!sub.trialEndsAt || sub.trialEndsAt > now);
  let counted = false;
  if (direction < 0) {
    const updated = await prisma.user.updateMany({
      where: { id: input.userId, ...(onTrial ? { downgradeCount: { lt: MAX_TRIAL_DOWNGRADES } } : {}) },
      data: { downgradeCount: { increment: 1 } },
    });
    if (updated.count === 0) {
      throw new AppError(
        "validation_failed",
        `Downgrade limit reached: at most ${MAX_TRIAL_DOWNGRADES} downgrades during a trial; further downgrades are possible after the trial ends${sub.trialEndsAt ? ` (${sub.trialEndsAt.toISOString()})` : ""}`,
      );
    }
    counted = true;
  }
  const provider = paymentProvider(input.requestUrl);
  let answer;
  try {
    answer = await provider.changeSubscriptionVariant(sub.providerSubscriptionId, input.newVariantId);
  } catch (error) {
    if (counted)
      await prisma.user.updateMany({ where: { id: input.userId, downgradeCount: { gt: 0 } }, data: { downgradeCount: { decrement: 1 } } });
    throw error;
  }
  const { subscription } = await applyProviderAnswer(provider, input.userId, answer, "subscription_updated");
  const kind = direction > 0 ? "upgraded" : direction < 0 ? "downgraded" : "changed";
  return {
    success: true,
    message: `Plan ${kind} to ${target.tier.name} (${target.billingPeriod})`,
    newVariantId: input.newVariantId,
    subscription: { status: subscription.status, currentPeriodEnd: subscription.currentPeriodEnd?.toISOString() ?? null },
  };
}
