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

export interface HandlerOutcome {
  /** pending: waits for something that has not arrived yet (the subscription of an invoice event). */
  status: "processed" | "pending" | "ignored";
  result: string;
  /** Set when this event created the subscription record (pending invoice events then apply). */
  createdSubscription?: string;
}

export type PaymentEventHandler = (ctx: PaymentEventContext) => Promise<HandlerOutcome>;
