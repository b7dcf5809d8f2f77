import { AppError } from "@/lib/errors";
import { metrics } from "@/lib/metrics";

/** The answer when a user's AI requests in progress are at the cap (429, Retry-After 1). */
export function tooManyAiRequests(cap: number): AppError {
  metrics().rateLimitRejections.inc({ category: "ai_concurrent" });
  return new AppError(
    "rate_limited",
    `Too many AI requests in progress for this account: at most ${cap} at once; retry when one has finished`,
    {
      headers: { "Retry-After": "1" },
      reason: "too_many_concurrent_requests",
    },
  );
}
