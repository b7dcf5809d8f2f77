import type { Prisma } from "@/lib/generated/prisma/client";
import { tierConfig } from "@/lib/config/pricing";

/** Calendar-month cycle key of the free tier's allocation ("YYYY-MM", UTC). */
export function freeCycleKey(at: Date = new Date()): string {
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, "0")}`;
}

/**
 * Gives a new user their tier's monthly allocation: the balance row and its `monthly_reset` ledger
 * row in the caller's transaction, keyed so it applies once per user and cycle.
 */
export async function initializeCredits(tx: Prisma.TransactionClient, userId: string, tier = "free"): Promise<void> {
  const allocation = tierConfig(tier).monthlyCredits;
  const now = new Date();
  const cycle = freeCycleKey(now);
  const operation = await tx.creditOperation.create({
    data: {
      userId,
      idempotencyKey: `reset:${userId}:${cycle}`,
      kind: "reset",
      amount: allocation,
      status: "applied",
    },
  });
  await tx.creditBalance.create({
    data: { userId, subscriptionCredits: allocation, monthlyAllocation: allocation, resetAt: now, cycle },
  });
  await tx.creditTransaction.create({
    data: {
      userId,
      amount: allocation,
      balanceAfter: allocation,
      type: "monthly_reset",
      operation: "initial_allocation",
      metadata: { tier, cycle },
      operationId: operation.id,
    },
  });
}
