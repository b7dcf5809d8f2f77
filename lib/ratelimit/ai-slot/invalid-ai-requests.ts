import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { metrics } from "@/lib/metrics";
import { checkWindowLimit } from "../index";

/**
 * A user whose AI requests keep failing validation (refused at no charge, but read and parsed at the
 * operator's cost) is refused altogether for the rest of the hour (docs/API-NOTES.md "Limits on AI
 * requests"). The count is shared through the rate-limit store; each process remembers whom it refuses.
 */
export const INVALID_AI_REQUESTS = { limit: 300, windowMs: 60 * 60_000 };
const refusedUntil = new Map<string, number>();
const MAX_REFUSED = 10_000;

/** Answers 429 when this user's invalid AI requests passed the limit (as this process last counted them). */
export function refuseIfTooManyInvalid(userId: string, nowMs = Date.now()): void {
  const until = refusedUntil.get(userId);
  if (until === undefined) return;
  if (until <= nowMs) {
    refusedUntil.delete(userId);
    return;
  }
  throw tooManyInvalid(until, nowMs);
}

/**
 * Counts one invalid AI request (a validation failure, a body too large or of the wrong type). Past the
 * limit the user is refused for the rest of the window by this process at once, and by every other at
 * its own next count (the count is shared).
 */
export async function countInvalidAiRequest(userId: string, nowMs = Date.now()): Promise<void> {
  const outcome = await checkWindowLimit(`ai_invalid:user:${userId}`, INVALID_AI_REQUESTS.limit, INVALID_AI_REQUESTS.windowMs, { nowMs });
  if (outcome && !outcome.allowed) {
    if (refusedUntil.size >= MAX_REFUSED) refusedUntil.delete(refusedUntil.keys().next().value as string);
    if (!refusedUntil.has(userId))
      log.warn("AI requests refused for a user sending invalid ones", { userId, until: new Date(outcome.reset * 1000).toISOString() });
    refusedUntil.set(userId, outcome.reset * 1000);
  }
}

function tooManyInvalid(untilMs: number, nowMs: number): AppError {
  metrics().rateLimitRejections.inc({ category: "ai_invalid" });
  const retryAfter = Math.max(1, Math.ceil((untilMs - nowMs) / 1000));
  return new AppError(
    "rate_limited",
    `Too many invalid AI requests from this account (more than ${INVALID_AI_REQUESTS.limit} in an hour); retry after ${retryAfter} seconds`,
    {
      headers: { "Retry-After": String(retryAfter) },
      reason: "too_many_invalid_requests",
    },
  );
}
