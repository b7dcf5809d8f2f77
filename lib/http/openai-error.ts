import type { ErrorCode } from "@/lib/errors";
import { withoutCredentials } from "@/lib/credential-shapes";
import { json } from "./respond";

/**
 * Errors of the OpenAI-compatible API (/v1) in OpenAI's shape and statuses, so its SDKs raise their
 * typed errors: `{ "error": { "message", "type", "code", "param" } }` (docs/API-NOTES.md
 * "OpenAI-compatible API"). No credits (of the user, or in the key's budget) is OpenAI's 429
 * `insufficient_quota` with `x-should-retry: false`: the openai SDKs raise RateLimitError and do not
 * retry; a rate limit is a 429 `rate_limit_exceeded` with Retry-After, which they do retry.
 */
interface OpenAiErrorKind {
  status: number;
  type: string;
  code: string | null;
  retry?: false;
}

const KIND_BY_CODE: Record<ErrorCode, OpenAiErrorKind> = {
  validation_failed: { status: 400, type: "invalid_request_error", code: "invalid_value" },
  bad_request: { status: 400, type: "invalid_request_error", code: null },
  content_policy: { status: 400, type: "invalid_request_error", code: "content_policy_violation" },
  unauthorized: { status: 401, type: "invalid_request_error", code: "invalid_api_key" },
  invalid_signature: { status: 401, type: "invalid_request_error", code: "invalid_api_key" },
  signature_rejected: { status: 400, type: "invalid_request_error", code: null },
  insufficient_credits: { status: 429, type: "insufficient_quota", code: "insufficient_quota", retry: false },
  quota_exhausted: { status: 429, type: "insufficient_quota", code: "insufficient_quota", retry: false },
  forbidden: { status: 403, type: "invalid_request_error", code: "permission_denied" },
  limit_reached: { status: 403, type: "invalid_request_error", code: "limit_reached" },
  not_found: { status: 404, type: "invalid_request_error", code: "not_found" },
  feature_disabled: { status: 404, type: "invalid_request_error", code: "not_found" },
  method_not_allowed: { status: 405, type: "invalid_request_error", code: "method_not_allowed" },
  conflict: { status: 409, type: "invalid_request_error", code: "conflict" },
  payload_too_large: { status: 413, type: "invalid_request_error", code: "payload_too_large" },
  unsupported_media_type: { status: 415, type: "invalid_request_error", code: "unsupported_media_type" },
  range_not_satisfiable: { status: 416, type: "invalid_request_error", code: null },
  rate_limited: { status: 429, type: "requests", code: "rate_limit_exceeded" },
  misconfigured: { status: 500, type: "server_error", code: null },
  provider_not_configured: { status: 500, type: "server_error", code: null },
  upstream_failed: { status: 500, type: "server_error", code: null },
  internal: { status: 500, type: "server_error", code: null },
  unavailable: { status: 503, type: "server_error", code: "service_unavailable" },
  payments_disabled: { status: 503, type: "server_error", code: "payments_disabled" },
};

export interface OpenAiErrorInput {
  code: ErrorCode;
  message: string;
  reason?: string;
  param?: string;
  headers?: Record<string, string>;
}

/** The `error` object of a body (also sent as an SSE event when a stream fails after it began). */
export function openAiErrorObject(e: OpenAiErrorInput): { message: string; type: string; code: string | null; param: string | null } {
  const kind = KIND_BY_CODE[e.code];
  return { message: withoutCredentials(e.message), type: kind.type, code: e.reason ?? kind.code, param: e.param ?? null };
}

export function openAiErrorResponse(e: OpenAiErrorInput): Response {
  const kind = KIND_BY_CODE[e.code];
  const headers = new Headers(e.headers);
  if (kind.retry === false) headers.set("x-should-retry", "false");
  return json({ error: openAiErrorObject(e) }, { status: kind.status, headers });
}
