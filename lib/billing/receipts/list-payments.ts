import { db } from "@/lib/db/client";
import type { Payment } from "@/lib/generated/prisma/client";
import { signSimulatorToken } from "../payment-provider/simulator-token";

export interface Receipt {
  id: string;
  paidAt: string;
  kind: string;
  description: string;
  /** Cents, in `currency`. */
  amount: number;
  currency: string;
  refundedAmount: number;
  status: string;
  credits: number;
  creditsTakenBack: number;
  refundedAt: string | null;
  /** A dispute (chargeback): open | won | lost (null: none), the amount disputed, and the credits frozen while it is open. */
  dispute: { status: string; amount: number; creditsHeld: number } | null;
  /** The provider's receipt or invoice (the local simulator's receipt page, valid 24 hours). */
  receiptUrl: string | null;
}

/** A simulated payment's receipt page: its token names the payment and the account (24 hours). */
export function simulatorReceiptUrl(paymentId: string, userId: string): string | null {
  try {
    return `/simulator/receipt?token=${encodeURIComponent(signSimulatorToken({ pid: paymentId, uid: userId }, 24 * 60 * 60))}`;
  } catch {
    // No signing secret (a production start without payments set up): no simulated receipt page.
    return null;
  }
}

/** A payment as a receipt shows it (the account's billing page; the console adds the provider's ids). */
export function receiptOf(p: Payment): Omit<Receipt, "receiptUrl"> {
  return {
    id: p.id,
    paidAt: p.paidAt.toISOString(),
    kind: p.kind,
    description: p.description,
    amount: p.amount,
    currency: p.currency,
    refundedAmount: p.refundedAmount,
    status: p.status,
    credits: p.credits,
    creditsTakenBack: p.creditsTakenBack,
    refundedAt: p.refundedAt?.toISOString() ?? null,
    dispute: p.disputeStatus ? { status: p.disputeStatus, amount: p.disputedAmount, creditsHeld: p.creditsHeld } : null,
  };
}

/** An account's payments, newest first (at most `limit`). */
export async function listPayments(userId: string, limit = 100): Promise<{ payments: Receipt[] }> {
  const prisma = await db();
  const rows = await prisma.payment.findMany({ where: { userId }, orderBy: [{ paidAt: "desc" }, { id: "desc" }], take: limit });
  return {
    payments: rows.map((p) => ({
      ...receiptOf(p),
      receiptUrl: p.provider === "simulator" ? simulatorReceiptUrl(p.id, userId) : p.receiptUrl,
    })),
  };
}
