import { db } from "@/lib/db/client";

export type DisputeState = "open" | "won" | "lost";

export interface DisputeMove {
  /** held: unspent credits frozen; released: given back (won); taken_back: lost, taken back as a refund. */
  outcome: "not_found" | "unchanged" | "held" | "released" | "taken_back";
  /** Credits frozen (open), given back (won) or kept frozen for good (lost). */
  held: number;
  /** A lost dispute's further credits taken from the buckets, and what became debt. */
  taken: number;
  owed: number;
  balance: number | null;
}

/**
 * A dispute's move on a payment's credits (prisma/functions/dispute_payment.sql: one statement under
 * the balance lock; opening twice, closing twice or a close before its open move nothing twice).
 */
export async function disputePayment(input: { paymentId: string; state: DisputeState; amount: number; at: Date }): Promise<DisputeMove> {
  const prisma = await db();
  const [row] = await prisma.$queryRaw<
    { outcome: DisputeMove["outcome"]; held: number; taken: number; owed: number; balance: number | null }[]
  >`
    SELECT outcome, held, taken, owed, balance
    FROM dispute_payment(${input.paymentId}::text, ${input.state}::text, ${Math.max(0, Math.trunc(input.amount))}::int, ${input.at}::timestamptz)`;
  return {
    outcome: row.outcome,
    held: Number(row.held),
    taken: Number(row.taken),
    owed: Number(row.owed),
    balance: row.balance === null ? null : Number(row.balance),
  };
}
