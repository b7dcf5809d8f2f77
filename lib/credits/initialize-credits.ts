import type { Prisma } from "@/lib/generated/prisma/client";
import { applyMonthlyAllocation, freeCycleKey } from "./apply-monthly-allocation";

export { freeCycleKey };

/**
 * Gives a new user their tier's monthly allocation: the balance row and its `monthly_reset` ledger
 * row in the caller's transaction, keyed `reset:<user>:<YYYY-MM>` so this month's free rollover does
 * not apply it a second time.
 */
export async function initializeCredits(tx: Prisma.TransactionClient, userId: string, tier = "free"): Promise<void> {
  await applyMonthlyAllocation({ userId, tier, cycleKey: freeCycleKey(), operation: "initial_allocation" }, tx);
}
