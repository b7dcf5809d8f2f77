import { applySnapshotEvent } from "./apply-snapshot-event";
import type { PaymentEventHandler } from "./types";

/** subscription_expired: the subscription ends; the user is downgraded to the free tier and its allocation. */
export const handleSubscriptionExpired: PaymentEventHandler = (ctx) => applySnapshotEvent(ctx, "subscription_expired");
