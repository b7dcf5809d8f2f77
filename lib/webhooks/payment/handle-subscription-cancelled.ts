import { applySnapshotEvent } from "./apply-snapshot-event";
import type { PaymentEventHandler } from "./types";

/** subscription_cancelled: the subscription is marked to end at the end of the current period (status cancelled, ends_at kept). */
export const handleSubscriptionCancelled: PaymentEventHandler = (ctx) => applySnapshotEvent(ctx, "subscription_cancelled");
