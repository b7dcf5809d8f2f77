import { AppError } from "@/lib/errors";
import { applyProviderAnswer } from "./apply-provider-answer";
import { currentSubscription } from "./current-subscription";
import { paymentProvider } from "../payment-provider/payment-provider";
import { requireUser } from "@/lib/users/require-user";

/**
 * POST /api/payments/cancel-subscription: cancels at the provider; the subscription stays active
 * until the current period ends (endsAt). Cancelling a subscription already cancelled answers the
 * same endsAt again.
 */
export async function cancelSubscription(input: { userId: string; requestUrl: string }): Promise<{ message: string; endsAt: string }> {
  await requireUser(input.userId);
  const sub = await currentSubscription(input.userId);
  if (!sub) throw new AppError("not_found", "No active subscription to cancel");
  if (sub.status === "cancelled" && sub.endsAt) {
    return {
      message: "Subscription is already cancelled; it stays active until the end of the current billing period",
      endsAt: sub.endsAt.toISOString(),
    };
  }
  const provider = paymentProvider(input.requestUrl);
  const answer = await provider.cancelSubscription(sub.providerSubscriptionId);
  const { subscription } = await applyProviderAnswer(provider, input.userId, answer, "subscription_cancelled");
  const endsAt = subscription.endsAt ?? subscription.currentPeriodEnd ?? subscription.trialEndsAt;
  if (!endsAt) throw new AppError("upstream_failed", "Payment provider did not report when the subscription ends");
  return { message: "Subscription cancelled; it stays active until the end of the current billing period", endsAt: endsAt.toISOString() };
}
