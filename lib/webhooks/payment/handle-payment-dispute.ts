import { disputeReceipt } from "@/lib/billing/receipts/dispute-payment";
import type { DisputeState } from "@/lib/credits";
import type { PaymentEventHandler } from "./types";

/** payment_dispute_opened / payment_dispute_closed: the payment's credits frozen, given back or taken back (lib/billing/receipts/dispute-payment.ts). */
export const handlePaymentDispute: PaymentEventHandler = (ctx) => {
  const a = ctx.event.data.attributes;
  const state: DisputeState = a.status === "won" || a.status === "lost" ? a.status : "open";
  return disputeReceipt({
    userId: ctx.userId,
    providerPaymentId: ctx.event.data.id,
    state: ctx.event.name === "payment_dispute_opened" ? "open" : state,
    amount: typeof a.amount === "number" ? a.amount : 0,
    occurredAt: ctx.occurredAt,
  });
};
