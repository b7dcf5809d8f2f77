import { applySubscriptionSnapshot } from "@/lib/billing/subscriptions/apply-subscription-snapshot";
import { paymentProviderName } from "@/lib/billing/payment-provider/payment-provider-name";
import type { SubscriptionAttributes } from "@/lib/billing/payment-provider/provider-types";
import type { SnapshotEvent } from "@/lib/billing/subscriptions/subscription-state";
import type { HandlerOutcome, PaymentEventContext } from "./types";

/** Shared by the seven subscription_* handlers: the payload is the whole subscription. */
export async function applySnapshotEvent(ctx: PaymentEventContext, name: SnapshotEvent): Promise<HandlerOutcome> {
  const result = await applySubscriptionSnapshot({
    userId: ctx.userId,
    subscription: { id: ctx.event.data.id, attributes: ctx.event.data.attributes as SubscriptionAttributes },
    event: name,
    provider: paymentProviderName(),
    source: "webhook",
  });
  return {
    status: "processed",
    result: result.applied
      ? `subscription ${result.subscription.status} (${result.subscription.tier})`
      : "older than the state held; newer state kept",
    createdSubscription: result.created ? result.subscription.providerSubscriptionId : undefined,
  };
}
