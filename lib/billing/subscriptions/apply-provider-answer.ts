import { applySubscriptionSnapshot } from "./apply-subscription-snapshot";
import type { PaymentProvider, ProviderSubscription } from "../payment-provider/provider-types";
import type { SnapshotEvent } from "./subscription-state";

/**
 * Applies the subscription a provider API call answered right away, so the user sees the change
 * before the webhook arrives; the webhook is then a no-op (same or older updated_at).
 */
export async function applyProviderAnswer(
  provider: PaymentProvider,
  userId: string,
  subscription: ProviderSubscription,
  event: SnapshotEvent,
) {
  return applySubscriptionSnapshot({ userId, subscription, event, provider: provider.name, source: "provider_answer" });
}
