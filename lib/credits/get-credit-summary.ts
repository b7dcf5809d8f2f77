import { dbRunner } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { rolloverFreeAllocationIfDue } from "./apply-monthly-allocation";
import { bonusSpendable, monthStart } from "./ledger";

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

/**
 * The user's balances, after applying the free tier's lazy calendar-month rollover: read once, and read
 * again only when the rollover was due (once a month for a free account), so a dashboard's poll is one
 * statement.
 */
export async function getCreditSummary(userId: string): Promise<CreditSummary> {
  const { rolloverDue, ...summary } = await readCreditSummary(userId);
  if (!rolloverDue) return summary;
  await rolloverFreeAllocationIfDue(userId);
  const { rolloverDue: _again, ...after } = await readCreditSummary(userId);
  return after;
}

interface SummaryRow {
  tier: string;
  auto_use: boolean;
  sub: number | null;
  allocation: number | null;
  reset_at: Date | string | null;
  bonus: number;
  debt: number | null;
  rollover_due: boolean;
}

/**
 * One statement on the raw driver, prepared once per connection: the `credit_summary` database
 * function, and whether the free tier's rollover is due by its one rule (`free_rollover_due`).
 */
const SUMMARY = "SELECT s.*, free_rollover_due(s.tier, s.reset_at, $2::timestamptz) AS rollover_due FROM credit_summary($1) s";

async function readCreditSummary(userId: string): Promise<CreditSummary & { rolloverDue: boolean }> {
  const rows = await (await dbRunner()).queryPrepared<SummaryRow>("credit_summary_v2", SUMMARY, [userId, monthStart().toISOString()]);
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
    rolloverDue: row.rollover_due === true,
  };
}
