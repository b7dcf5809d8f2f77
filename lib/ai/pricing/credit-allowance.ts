import type { Reservation } from "@/lib/credits";

/**
 * X-RateLimit-* of /api/ai/stream describe the user's CREDIT allowance (AI endpoints have no request
 * rate limit; credits limit them):
 *   X-RateLimit-Limit      monthly allocation + bonus credits the user may spend
 *   X-RateLimit-Remaining  usable credits after this request's charge
 *   X-RateLimit-Reset      Unix time of the next monthly allocation (free tier: the 1st of next month,
 *                          UTC; paid tiers: one month after the last reset, i.e. the renewal)
 * Read from what the charge itself saw under its balance lock: no query of their own. In
 * classic_saas mode (nothing charged) no headers are sent.
 */
export function creditAllowanceHeaders(reservation: Reservation): Record<string, string> {
  const allowance = reservation.allowance;
  if (!reservation.charged || !allowance) return {};
  return {
    "X-RateLimit-Limit": String(allowance.monthlyAllocation + allowance.usableBonusCredits),
    "X-RateLimit-Remaining": String(reservation.remaining),
    "X-RateLimit-Reset": String(Math.floor(nextAllocationReset(allowance.tier, allowance.resetAt).getTime() / 1000)),
  };
}

export function nextAllocationReset(tier: string, lastReset: Date | null, now: Date = new Date()): Date {
  if (tier !== "free" && lastReset) {
    const next = new Date(lastReset);
    next.setUTCMonth(next.getUTCMonth() + 1);
    if (next > now) return next;
  }
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}
