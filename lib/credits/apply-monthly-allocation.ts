import type { Prisma } from "@/lib/generated/prisma/client";
import { isTierKey, tierConfig } from "@/lib/config/pricing";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { countCreditsGranted } from "./insert-bonus-purchase";
import { heldBonusCredits, insertLedgerRows, insertOperationOnce, lockBalance, monthStart, payDebt, type Tx } from "./ledger";

export interface MonthlyAllocationInput {
  userId: string;
  tier: string;
  /** Identifies the allocation cycle: the allocation applies once per (userId, cycleKey). */
  cycleKey: string;
  /** The ledger row's operation name (default "monthly_reset"). */
  operation?: string;
}

/** Calendar-month cycle key of the free tier's allocation ("YYYY-MM", UTC). */
export function freeCycleKey(at: Date = new Date()): string {
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, "0")}`;
}

/**
 * A tier's monthly allocation for a wallet: an organisation on the free tier gets none (organisations
 * cost nothing to create, so a free allocation each would be free credits for the asking).
 */
export function allocationOf(tier: string, kind: "person" | "organisation"): number {
  return kind === "organisation" && tier === "free" ? 0 : tierConfig(tier).monthlyCredits;
}

async function apply(tx: Tx, input: MonthlyAllocationInput): Promise<{ applied: boolean; allocation: number }> {
  const balance = await lockBalance(tx, input.userId);
  const allocation = allocationOf(input.tier, balance.kind);
  const operationId = await insertOperationOnce(tx, {
    userId: input.userId,
    idempotencyKey: `reset:${input.userId}:${input.cycleKey}`,
    kind: "reset",
    amount: allocation,
    status: "applied",
    details: { tier: input.tier, cycle: input.cycleKey, previous: balance.subscriptionCredits },
  });
  if (!operationId) return { applied: false, allocation };
  // The allocation pays the debt first: the bucket gets the rest, the balance rises by the same amount.
  const paidToDebt = await payDebt(tx, balance, input.userId, allocation);
  await tx.$executeRaw`
    UPDATE credit_balances
    SET subscription_credits = ${allocation - paidToDebt}::int, monthly_allocation = ${allocation}::int,
        reset_at = now(), cycle = ${input.cycleKey}::text, updated_at = now()
    WHERE user_id = ${input.userId}::text`;
  const bonus = await heldBonusCredits(tx, input.userId);
  await insertLedgerRows(tx, [
    {
      userId: input.userId,
      // The change to the subscription bucket, so the bucket always equals the sum of its rows.
      amount: allocation - balance.subscriptionCredits,
      balanceAfter: allocation + bonus - balance.debt,
      type: "monthly_reset",
      operation: input.operation ?? "monthly_reset",
      metadata: {
        tier: input.tier,
        cycle: input.cycleKey,
        allocation,
        previous: balance.subscriptionCredits,
        ...(paidToDebt > 0 ? { debtPaid: paidToDebt } : {}),
      },
      operationId,
    },
  ]);
  return { applied: true, allocation };
}

/**
 * Sets the user's subscription credits to the tier's monthly allocation (unused credits of the
 * previous cycle do not carry over), with a `monthly_reset` ledger row whose amount is the change.
 * Applies once per (userId, cycleKey): a repeated call (a retried webhook) answers applied false.
 * Joins the caller's transaction when `tx` is given.
 */
export async function applyMonthlyAllocation(input: MonthlyAllocationInput, tx?: Prisma.TransactionClient): Promise<{ applied: boolean }> {
  if (!isTierKey(input.tier)) throw new AppError("bad_request", `Unknown tier "${input.tier}"`);
  if (!input.cycleKey) throw new AppError("bad_request", "cycleKey is required");
  const granted = ({ applied, allocation }: { applied: boolean; allocation: number }) => {
    // Counted when applied (inside a caller's transaction: when that transaction's work is done).
    if (applied && allocation > 0) countCreditsGranted("monthly_reset", allocation);
    return { applied };
  };
  if (tx) return granted(await apply(tx, input));
  const prisma = await db();
  return granted(await prisma.$transaction((t) => apply(t, input)));
}

/**
 * The free tier's lazy calendar-month rollover: when a free user's last reset is before the start of
 * the current month (UTC), applies this month's allocation. Exactly once per month under concurrency
 * (the idempotency key `reset:<user>:<YYYY-MM>` is unique). Cheap when nothing is due: one read. Whether
 * it is due is the database's `free_rollover_due` (the rule's one home, which reserve_credits uses too).
 */
export async function rolloverFreeAllocationIfDue(userId: string, now: Date = new Date()): Promise<boolean> {
  const prisma = await db();
  const rows = await prisma.$queryRaw<{ due: boolean }[]>`
    SELECT free_rollover_due(u.tier, b.reset_at, ${monthStart(now)}::timestamptz) AS due
      FROM users u LEFT JOIN credit_balances b ON b.user_id = u.id WHERE u.id = ${userId}::text`;
  const row = rows[0];
  if (!row) throw new AppError("not_found", "User not found");
  if (!row.due) return false;
  const { applied } = await applyMonthlyAllocation({ userId, tier: "free", cycleKey: freeCycleKey(now), operation: "monthly_rollover" });
  return applied;
}
