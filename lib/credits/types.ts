/** A charge made by reserveCredits: settle it when the work succeeded, refund it when it failed. */
export interface Reservation {
  /** The charge's credit_operations id. */
  id: string;
  userId: string;
  amount: number;
  /** False in classic_saas mode (nothing was charged; settle/refund are no-ops). */
  charged: boolean;
  /** Total usable credits after the charge (subscription + bonus credits the user may spend). */
  remaining: number;
  /** What the credits were charged for (metrics labels); absent on a reservation read back by key. */
  operation?: string;
  /** The user's allowance as the charge saw it (absent when nothing was charged). */
  allowance?: CreditAllowance;
  /** A charge made with an API key that has a budget: the key's window as the charge left it (spend alerts read it). */
  key?: { id: string; spent: number; budget: number; period: string | null; windowStart: Date | null; alertThresholds?: number[] };
  /** Made by an organisation's member or with a key: the charge may be an organisation's, whose team budgets observers check. */
  teamCharge?: boolean;
  /** A charge to an organisation's wallet: the member who made it (their cap alerts). */
  memberId?: string;
}

/** What a charge read under its lock besides the buckets: the allocation and when it was last reset. */
export interface CreditAllowance {
  tier: string;
  monthlyAllocation: number;
  resetAt: Date | null;
  /** Bonus credits the user may spend after the charge. */
  usableBonusCredits: number;
}

/** What the usage endpoint reports when the credit system is off (classic_saas, SPEC §4.4). */
export const UNLIMITED_CREDITS = 999_999;
