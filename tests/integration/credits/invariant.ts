import { expect } from "vitest";
import { db } from "@/lib/db/client";

/**
 * The ledger invariant, asserted after every scenario: the subscription credits equal the sum of the
 * user's ledger rows without a bonus purchase, and each purchase's remaining equals the sum of its rows.
 * Neither bucket is ever negative.
 */
export async function expectLedgerBalances(userId: string): Promise<void> {
  const prisma = await db();
  const balance = await prisma.creditBalance.findUniqueOrThrow({ where: { userId } });
  const sub = await prisma.creditTransaction.aggregate({ where: { userId, bonusPurchaseId: null }, _sum: { amount: true } });
  expect(balance.subscriptionCredits).toBeGreaterThanOrEqual(0);
  expect(sub._sum.amount ?? 0).toBe(balance.subscriptionCredits);
  const purchases = await prisma.bonusPurchase.findMany({ where: { userId } });
  for (const p of purchases) {
    const sum = await prisma.creditTransaction.aggregate({ where: { bonusPurchaseId: p.id }, _sum: { amount: true } });
    expect(p.remaining).toBeGreaterThanOrEqual(0);
    expect(sum._sum.amount ?? 0).toBe(p.remaining);
  }
}

/** Sets a user's subscription credits through the ledger (an adjustment row), for test setup. */
export async function setSubscriptionCredits(userId: string, credits: number): Promise<void> {
  const prisma = await db();
  await prisma.$transaction(async (tx) => {
    const b = await tx.creditBalance.findUniqueOrThrow({ where: { userId } });
    await tx.creditBalance.update({ where: { userId }, data: { subscriptionCredits: credits } });
    await tx.creditTransaction.create({
      data: { userId, amount: credits - b.subscriptionCredits, balanceAfter: credits, type: "adjustment", operation: "test_setup" },
    });
  });
}
