import { allocationPeriodEnd, type Reservation } from "@/lib/credits";

/**
 * X-RateLimit-* of /api/ai/stream describe the user's CREDIT allowance (AI endpoints have no request
 * rate limit; credits limit them):
 *   X-RateLimit-Limit      monthly allocation + bonus credits the user may spend
 *   X-RateLimit-Remaining  usable credits after this request's charge
 *   X-RateLimit-Reset      Unix time of the next monthly allocation (allocationPeriodEnd: free tier the
 *                          1st of next month, UTC; paid tiers a month after the last allocation, the
 *                          renewal whose payment allocates the next month)
 * Read from what the charge itself saw under its balance lock: no query of their own. In
 * classic_saas mode (nothing charged) no headers are sent.
 */
export function creditAllowanceHeaders(reservation: Reservation): Record<string, string> {
  const allowance = reservation.allowance;
  if (!reservation.charged || !allowance) return {};
  return {
    "X-RateLimit-Limit": String(allowance.monthlyAllocation + allowance.usableBonusCredits),
    "X-RateLimit-Remaining": String(reservation.remaining),
    "X-RateLimit-Reset": String(Math.floor(allocationPeriodEnd({ tier: allowance.tier, lastReset: allowance.resetAt }).getTime() / 1000)),
  };
}
