import type { ProviderInvoice } from "./provider-types";

/**
 * What applying one payment event did. pending: it waits for something that has not arrived yet (the
 * subscription of an invoice event, or the user of a purchase); the delivery is kept and re-run then.
 */
export interface PaymentEventOutcome {
  status: "processed" | "pending" | "ignored";
  result: string;
}

/** An invoice event (subscription_payment_success / _failed / _recovered) for one of our users. */
export interface InvoiceEventInput {
  userId: string;
  invoice: ProviderInvoice;
  /** The event's provider time (updated_at). */
  occurredAt: Date;
}

export const SUBSCRIPTION_NOT_KNOWN_YET: PaymentEventOutcome = {
  status: "pending",
  result: "subscription not known yet; kept until it arrives",
};
