import { flags } from "@/lib/config/flags";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { accountPeriodEnd } from "./allocation-period";
import { getCreditSummary } from "./get-credit-summary";
import { UNLIMITED_CREDITS } from "./types";

export interface AiUsage {
  unlimited: boolean;
  tier: string;
  monthlyLimit: number;
  remaining: number;
  bonusCredits: number;
  used: number;
  /** The last allocation (SPEC §4.4: "last credit reset"). */
  resetAt?: string;
  /**
   * Credits a refund took back that had already been spent (present when above 0): charges answer 402
   * until credits bought or granted pay it, and remaining and bonusCredits read 0 meanwhile.
   */
  debt?: number;
  /** When the next allocation is due (the period's end: the plan's renewal, or the 1st for the free tier). */
  nextResetAt?: string;
}

/**
 * The usage endpoint's answer (SPEC §4.4). classic_saas: the fixed unlimited values, no resetAt.
 * credit_based: the tier's allocation, the subscription credits left, the unexpired bonus credits,
 * used = monthlyLimit - remaining (never below 0), the last reset (SPEC's resetAt) and the next one.
 */
export async function getAiUsage(userId: string): Promise<AiUsage> {
  if (!flags().creditBased) {
    const prisma = await db();
    const user = await prisma.user.findUnique({ where: { id: userId }, select: { id: true } });
    if (!user) throw new AppError("not_found", "User not found");
    return { unlimited: true, tier: "unlimited", monthlyLimit: UNLIMITED_CREDITS, remaining: UNLIMITED_CREDITS, bonusCredits: 0, used: 0 };
  }
  const s = await getCreditSummary(userId);
  const periodEnd = await accountPeriodEnd(userId, new Date(), { tier: s.tier, lastReset: s.resetAt });
  return {
    unlimited: false,
    tier: s.tier,
    monthlyLimit: s.monthlyAllocation,
    remaining: s.debt > 0 ? 0 : s.subscriptionCredits,
    bonusCredits: s.debt > 0 ? 0 : s.bonusCredits,
    used: Math.max(0, s.monthlyAllocation - s.subscriptionCredits),
    ...(s.debt > 0 ? { debt: s.debt } : {}),
    ...(s.resetAt ? { resetAt: s.resetAt.toISOString() } : {}),
    nextResetAt: periodEnd.toISOString(),
  };
}
