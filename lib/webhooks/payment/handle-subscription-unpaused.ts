import { applySnapshotEvent } from "./apply-snapshot-event";
import type { PaymentEventHandler } from "./types";

/** subscription_unpaused: a paused subscription resumes. */
export const handleSubscriptionUnpaused: PaymentEventHandler = (ctx) => applySnapshotEvent(ctx, "subscription_unpaused");
