import type { PaymentEventOutcome } from "@/lib/billing/payment-provider/payment-event-outcome";
import type { Logger } from "@/lib/log";
import type { PaymentEvent } from "./payload";

export interface PaymentEventContext {
  event: PaymentEvent;
  /** Our user the event belongs to (resolved by custom_data.user_id, subscription or email). */
  userId: string;
  /** The event's provider updated_at. */
  occurredAt: Date;
  log: Logger;
}

export interface HandlerOutcome extends PaymentEventOutcome {
  /** Set when this event created the subscription record (pending invoice events then apply). */
  createdSubscription?: string;
}

/** One per event type: parses nothing and decides nothing, it hands the event to its lib/billing function. */
export type PaymentEventHandler = (ctx: PaymentEventContext) => Promise<HandlerOutcome>;
