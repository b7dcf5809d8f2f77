import { applySnapshotEvent } from "./apply-snapshot-event";
import type { PaymentEventHandler } from "./types";

/** subscription_updated: plan and status are updated (an upgrade applies the new tier's allocation). */
export const handleSubscriptionUpdated: PaymentEventHandler = (ctx) => applySnapshotEvent(ctx, "subscription_updated");
