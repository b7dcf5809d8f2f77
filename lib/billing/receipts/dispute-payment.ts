import { disputePayment, type DisputeState } from "@/lib/credits";
import { db } from "@/lib/db/client";
import type { PaymentEventOutcome } from "../payment-provider/payment-event-outcome";
import { paymentProviderName } from "../payment-provider/payment-provider-name";

/**
 * A dispute on a payment we recorded (a pack's, or a subscription invoice's): opened, it freezes the
 * unspent credits the disputed amount bought; won, they come back; lost, the payment is taken back as
 * a refund (prisma/functions/dispute_payment.sql). A dispute on a payment we never recorded is
 * acknowledged and logged: there is nothing of it to freeze.
 */
export async function disputeReceipt(input: {
  userId: string;
  providerPaymentId: string;
  state: DisputeState;
  /** The disputed amount (cents). */
  amount: number;
  occurredAt: Date;
}): Promise<PaymentEventOutcome> {
  const prisma = await db();
  const payment = await prisma.payment.findUnique({
    where: { provider_providerPaymentId: { provider: paymentProviderName(), providerPaymentId: input.providerPaymentId } },
    select: { id: true, userId: true },
  });
  if (!payment || payment.userId !== input.userId) {
    return { status: "ignored", result: `no payment ${input.providerPaymentId} recorded for this account; nothing to freeze` };
  }
  const move = await disputePayment({ paymentId: payment.id, state: input.state, amount: input.amount, at: input.occurredAt });
  switch (move.outcome) {
    case "held":
      return { status: "processed", result: `dispute opened: ${move.held} unspent credits frozen` };
    case "released":
      return { status: "processed", result: `dispute won: ${move.held} credits given back` };
    case "taken_back":
      return {
        status: "processed",
        result: `dispute lost: ${move.held} frozen credits kept, ${move.taken} more taken back${move.owed ? `, ${move.owed} owed (already spent)` : ""}`,
      };
    default:
      return { status: "processed", result: "dispute already in this state; nothing changed" };
  }
}
