import { AppError } from "@/lib/errors";
import { AiAbortError } from "./abort";

/**
 * One vocabulary for what went wrong upstream, whatever the vendor: each adapter classifies its
 * SDK's failure into an UpstreamFailure and this module words the AppError the client sees (never the
 * key, never the upstream body) and says whether another route may be tried (lib/ai/providers/router.ts).
 */
export interface UpstreamFailure {
  kind: "timeout" | "network" | "http" | "invalid" | "refused";
  status?: number;
  /** The vendor's error code or type ("rate_limit_error", "RESOURCE_EXHAUSTED", "insufficient_quota"). */
  code?: string | null;
  /** The vendor's message, used only to recognise content-policy refusals. */
  message?: string;
  /** How long the vendor asked us to wait (Retry-After, Google's RetryInfo), ms. */
  retryAfterMs?: number | null;
  /** The quota is exhausted (billing), not a momentary throttle: waiting does not help. */
  outOfQuota?: boolean;
}

/**
 * How far a failed call got, which decides who pays (docs/API-NOTES.md "Pricing"):
 *   not_sent  the provider never had the request (no connection, aborted before it left): nothing billed
 *   refused   the provider answered with an error status, which providers do not bill
 *   received  the provider had the request when it failed (timeout, abort, a cut or unusable answer):
 *             it bills the prompt and what it produced, so the call is charged for them
 */
export type Reach = "not_sent" | "refused" | "received";

const REACH_BY_KIND: Record<UpstreamFailure["kind"], Reach> = {
  timeout: "received",
  network: "not_sent",
  http: "refused",
  invalid: "received",
  refused: "received",
};

/** How far a failed provider call got; errors of ours before any call (a 400) never reached it. */
export function reachOf(error: unknown): Reach {
  if (error instanceof AiAbortError) return error.received ? "received" : "not_sent";
  if (error instanceof AppError) {
    const reach = error.details?.reach;
    return reach === "received" || reach === "refused" ? reach : "not_sent";
  }
  // An unexpected error while a provider call was under way: it may have the request.
  return "received";
}

/** Why a failure may be retried on the next route: the failover conditions of the routing rules. */
export type FailoverReason = "timeout" | "network" | "rate_limited" | "overloaded" | "server_error";

const FAILOVER = "failover";

export function failoverReason(f: UpstreamFailure): FailoverReason | null {
  if (f.kind === "timeout") return "timeout";
  if (f.kind === "network") return "network";
  if (f.kind !== "http" || f.status === undefined) return null;
  if (f.status === 429 && !f.outOfQuota) return "rate_limited";
  if (f.status === 529 || f.status === 503) return "overloaded";
  if (f.status >= 500) return "server_error";
  return null;
}

const CONTENT_POLICY = /content[ _-]?polic|safety system|content[ _-]?filter|moderation|blocked|safety/;

/** The AppError a failure answers, with `details.failover` and `details.retryAfterMs` for the router. */
export function upstreamError(
  f: UpstreamFailure,
  what: string,
  timeoutMs: number,
  cause?: unknown,
  reach: Reach = REACH_BY_KIND[f.kind],
): AppError {
  const failover = failoverReason(f);
  const details: Record<string, number | string> = { reach };
  if (failover) details[FAILOVER] = failover;
  if (f.retryAfterMs) details.retryAfterMs = f.retryAfterMs;
  const opts = { cause, details };
  if (
    f.kind === "refused" ||
    (f.kind === "http" && f.status === 400 && CONTENT_POLICY.test(`${f.code ?? ""} ${f.message ?? ""}`.toLowerCase()))
  ) {
    return new AppError("content_policy", `The ${what} was refused by the AI provider's content policy`, { cause, details: { reach } });
  }
  if (f.kind === "timeout") {
    // Unavailable (503): the provider is too slow right now, the client may try again.
    return new AppError(
      "unavailable",
      `AI provider did not answer the ${what} within ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} seconds` : `${timeoutMs} ms`}`,
      opts,
    );
  }
  if (f.kind === "network") return new AppError("upstream_failed", `AI provider could not be reached (${what})`, opts);
  if (f.kind === "invalid" || f.status === undefined)
    return new AppError("upstream_failed", `AI provider returned an unusable answer (${what})`, opts);
  if (failover === "rate_limited") {
    const seconds = retryAfterSeconds(f.retryAfterMs);
    // The provider throttles us: the caller may retry later, so this is the client's 429, not a 500.
    return new AppError("rate_limited", `AI provider is rate limiting requests; try again in ${seconds} seconds (${what})`, {
      ...opts,
      headers: { "retry-after": String(seconds) },
    });
  }
  const reason =
    f.status === 401 || f.status === 403
      ? "rejected the configured API key"
      : f.status === 404
        ? "does not know the requested model or endpoint"
        : f.status === 429
          ? "is out of quota (check the provider account's billing)"
          : f.status === 529
            ? "is overloaded (status 529)"
            : f.status >= 500
              ? `failed with status ${f.status}`
              : `rejected the request with status ${f.status}`;
  return new AppError("upstream_failed", `AI provider ${reason} (${what})`, opts);
}

/** The failover reason an error carries (null: not worth another route). */
export function failoverOf(error: unknown): FailoverReason | null {
  const d = (error as AppError | undefined)?.details;
  return d && typeof d[FAILOVER] === "string" ? (d[FAILOVER] as FailoverReason) : null;
}

export function retryAfterOf(error: unknown): number | null {
  const v = (error as AppError | undefined)?.details?.retryAfterMs;
  return typeof v === "number" ? v : null;
}

/** Retry-After in whole seconds, 1..3600; 30 when the provider gave none. */
export function retryAfterSeconds(ms: number | null | undefined): number {
  return ms ? Math.min(3600, Math.max(1, Math.ceil(ms / 1000))) : 30;
}

/** A Retry-After header value (seconds or an HTTP date) in ms, or null. */
export function parseRetryAfter(raw: string | null | undefined): number | null {
  if (!raw) return null;
  const seconds = /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : (Date.parse(raw) - Date.now()) / 1000;
  return Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds * 1000) : null;
}
