import { applySnapshotEvent } from "./apply-snapshot-event";
import type { PaymentEventHandler } from "./types";

/** subscription_resumed: a cancelled subscription is reactivated (ends_at cleared). */
export const handleSubscriptionResumed: PaymentEventHandler = (ctx) => applySnapshotEvent(ctx, "subscription_resumed");
