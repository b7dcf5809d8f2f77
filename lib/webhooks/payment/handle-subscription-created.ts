import { applySnapshotEvent } from "./apply-snapshot-event";
import type { PaymentEventHandler } from "./types";

/** subscription_created: creates the subscription record (or updates it when subscription_updated came first); the tier and the monthly allocation follow. */
export const handleSubscriptionCreated: PaymentEventHandler = (ctx) => applySnapshotEvent(ctx, "subscription_created");
