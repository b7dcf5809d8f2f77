import { AppError } from "@/lib/errors";
import { applyProviderAnswer } from "./apply-provider-answer";
import { currentSubscription } from "./current-subscription";
import { paymentProvider } from "../payment-provider/payment-provider";

/** Resumes a cancelled subscription that has not ended yet (billing portal action). */
export async function resumeSubscription(input: { userId: string; requestUrl?: string }): Promise<{ status: string }> {
  const sub = await currentSubscription(input.userId);
  if (!sub) throw new AppError("not_found", "No subscription to resume");
  if (sub.status !== "cancelled") throw new AppError("bad_request", "Only a cancelled subscription can be resumed");
  const provider = paymentProvider(input.requestUrl);
  const answer = await provider.resumeSubscription(sub.providerSubscriptionId);
  const { subscription } = await applyProviderAnswer(provider, input.userId, answer, "subscription_resumed");
  return { status: subscription.status };
}
