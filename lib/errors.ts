/**
 * Domain errors carry a neutral code; lib/http/status.ts is the one table that maps codes to HTTP
 * statuses. Domain code throws these and never imports lib/http.
 */
export type ErrorCode =
  | "validation_failed"
  | "bad_request"
  | "unauthorized"
  | "invalid_signature"
  /** A signature scheme whose provider expects 400 for a failed check (Stripe). */
  | "signature_rejected"
  | "insufficient_credits"
  | "forbidden"
  | "limit_reached"
  | "not_found"
  | "feature_disabled"
  | "method_not_allowed"
  | "conflict"
  | "payload_too_large"
  | "unsupported_media_type"
  | "range_not_satisfiable"
  | "rate_limited"
  | "quota_exhausted"
  | "content_policy"
  | "provider_not_configured"
  | "upstream_failed"
  | "misconfigured"
  | "unavailable"
  | "payments_disabled"
  | "internal";

export interface AppErrorOptions {
  cause?: unknown;
  /** Extra response headers (for example Retry-After on rate_limited). */
  headers?: Record<string, string>;
  /** The request field the error is about ("messages", "maxTokens"), when there is one. */
  param?: string;
  /** Figures behind the message, for callers that reword it (never secrets). */
  details?: Record<string, number | string>;
  /** A finer reason than the code ("model_not_allowed", "budget_exceeded"), for answers that carry one (the /v1 API's `code`). */
  reason?: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly headers?: Record<string, string>;
  readonly param?: string;
  readonly details?: Record<string, number | string>;
  readonly reason?: string;

  constructor(code: ErrorCode, message: string, options?: AppErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.headers = options?.headers;
    this.param = options?.param;
    this.details = options?.details;
    this.reason = options?.reason;
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/**
 * A request whose signature could not be verified: a wrong, stale or malformed signature
 * (`invalid_signature`), missing signature headers (reason `signature_missing`), or a body too large
 * to be read and checked. The webhooks' request limit counts only these.
 */
export function isVerificationFailure(error: unknown): boolean {
  if (!isAppError(error)) return false;
  return (
    error.code === "invalid_signature" ||
    error.code === "signature_rejected" ||
    error.code === "payload_too_large" ||
    error.reason === "signature_missing"
  );
}

export const notFound = (what: string) => new AppError("not_found", `${what} not found`);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Our row ids are UUIDs. */
export const isUuid = (id: string): boolean => UUID.test(id);

/**
 * A malformed id can only be "not found": the same answer as another user's id (never a 400 that
 * tells them apart), and no database cast error.
 */
export function requireUuids(what: string, ...ids: string[]): void {
  if (!ids.every(isUuid)) throw notFound(what);
}
