import { applySnapshotEvent } from "./apply-snapshot-event";
import type { PaymentEventHandler } from "./types";

/** subscription_paused: payment collection is paused (status paused). */
export const handleSubscriptionPaused: PaymentEventHandler = (ctx) => applySnapshotEvent(ctx, "subscription_paused");
