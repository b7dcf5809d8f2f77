import { db } from "@/lib/db/client";

export interface TakeBack {
  /** not_found: no such payment; unchanged: nothing more to take back; taken_back: credits moved. */
  outcome: "not_found" | "unchanged" | "taken_back";
  /** Credits taken from the buckets (the purchase's unspent credits, or the plan's subscription credits). */
  taken: number;
  /** Credits already spent that became debt. */
  owed: number;
  /** The account's debt after it, and its balance (buckets less the debt). */
  debt: number | null;
  balance: number | null;
}

/**
 * A refund takes back what a payment bought, in proportion to the amount refunded so far
 * (prisma/functions/take_back_payment.sql: one statement, under the balance lock; a replay, a smaller
 * amount after a larger one, or the events out of order take back nothing twice).
 */
export async function takeBackPayment(input: { paymentId: string; refundedAmount: number; at: Date }): Promise<TakeBack> {
  const prisma = await db();
  const [row] = await prisma.$queryRaw<
    { outcome: TakeBack["outcome"]; taken: number; owed: number; debt: number | null; balance: number | null }[]
  >`
    SELECT outcome, taken, owed, debt, balance
    FROM take_back_payment(${input.paymentId}::text, ${Math.max(0, Math.trunc(input.refundedAmount))}::int, ${input.at}::timestamptz)`;
  return {
    outcome: row.outcome,
    taken: Number(row.taken),
    owed: Number(row.owed),
    debt: row.debt === null ? null : Number(row.debt),
    balance: row.balance === null ? null : Number(row.balance),
  };
}
