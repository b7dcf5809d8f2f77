import type { ErrorCode } from "@/lib/errors";

/** The one table mapping domain error codes to HTTP statuses. */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  validation_failed: 400,
  bad_request: 400,
  content_policy: 400,
  unauthorized: 401,
  invalid_signature: 401,
  signature_rejected: 400,
  insufficient_credits: 402,
  forbidden: 403,
  limit_reached: 403,
  not_found: 404,
  feature_disabled: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  rate_limited: 429,
  quota_exhausted: 429,
  misconfigured: 500,
  provider_not_configured: 500,
  upstream_failed: 500,
  internal: 500,
  unavailable: 503,
  payments_disabled: 503,
};

/** Codes whose message is written for the client; anything else answers a generic message. */
export function exposesMessage(code: ErrorCode): boolean {
  return code !== "internal";
}
