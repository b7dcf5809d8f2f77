import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { rolloverFreeAllocationIfDue } from "./apply-monthly-allocation";
import { bonusSpendable } from "./ledger";

export interface CreditSummary {
  tier: string;
  /** The allocation of the last reset (the tier's monthly credits). */
  monthlyAllocation: number;
  /** Subscription credits left this cycle. */
  subscriptionCredits: number;
  /** Remaining credits of unexpired bonus purchases. */
  bonusCredits: number;
  /** The bonus credits the user may spend now (0 when auto-use is off and the per-user toggle is on). */
  usableBonusCredits: number;
  /** subscriptionCredits + usableBonusCredits; 0 while the account owes a debt (nothing may be spent then). */
  totalUsable: number;
  /** Credits a refund took back that had been spent: charges are refused until credits that arrive pay it. */
  debt: number;
  /** Last monthly reset. */
  resetAt: Date | null;
}

/** The user's balances, after applying the free tier's lazy calendar-month rollover. */
export async function getCreditSummary(userId: string): Promise<CreditSummary> {
  await rolloverFreeAllocationIfDue(userId);
  const prisma = await db();
  const rows = await prisma.$queryRaw<
    {
      tier: string;
      auto_use: boolean;
      sub: number | null;
      allocation: number | null;
      reset_at: Date | null;
      bonus: number;
      debt: number | null;
    }[]
  >`
    SELECT u.tier, u.bonus_credits_auto_use AS auto_use, b.subscription_credits AS sub, b.monthly_allocation AS allocation, b.reset_at, b.debt,
      (SELECT COALESCE(SUM(p.remaining), 0)::int FROM bonus_purchases p
        WHERE p.user_id = u.id AND p.remaining > 0 AND p.expires_at > now()) AS bonus
    FROM users u LEFT JOIN credit_balances b ON b.user_id = u.id
    WHERE u.id = ${userId}::text`;
  const row = rows[0];
  if (!row) throw new AppError("not_found", "User not found");
  const subscriptionCredits = Number(row.sub ?? 0);
  const bonusCredits = Number(row.bonus ?? 0);
  const usableBonusCredits = bonusSpendable(Boolean(row.auto_use)) ? bonusCredits : 0;
  return {
    tier: row.tier,
    monthlyAllocation: Number(row.allocation ?? 0),
    subscriptionCredits,
    bonusCredits,
    usableBonusCredits,
    totalUsable: Number(row.debt ?? 0) > 0 ? 0 : subscriptionCredits + usableBonusCredits,
    debt: Number(row.debt ?? 0),
    resetAt: row.reset_at ? new Date(row.reset_at) : null,
  };
}
