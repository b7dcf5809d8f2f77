/**
 * Rate-limit categories: fixed one-hour windows, per user and per IP (null: not limited). The first
 * six are SPEC §8's and keep its figures; the others are this service's, each named after what it
 * protects. A route declares its category (`rateLimit` in its route() declaration); a route that
 * declares none has no request limit. docs/API-NOTES.md's table is printed from these declarations
 * (`npm run openapi`), so the table and the code cannot disagree.
 */
export const RATE_LIMIT_WINDOW_MS = 60 * 60 * 1000;

export interface RateLimitCategorySpec {
  perUser: number | null;
  perIp: number | null;
  /** What the limit protects, for the documentation. */
  protects: string;
  /** Whether SPEC §8 defines it (its figures are the specification's). */
  spec: boolean;
  /**
   * What is counted: every request (default), or only requests that fail signature verification
   * (webhooks: a delivery whose signature verifies is always processed, however busy the hour).
   */
  counts?: "every_request" | "failed_verification";
}

export const RATE_LIMIT_CATEGORIES = {
  upload: { perUser: 10, perIp: 20, protects: "storage and the work of reading uploads", spec: true },
  email: { perUser: 5, perIp: 10, protects: "the sending domain's reputation: mail to any address", spec: true },
  contact: { perUser: null, perIp: 3, protects: "defined by SPEC §8; no endpoint uses it", spec: true },
  payments: {
    perUser: 20,
    perIp: null,
    protects: "the payment provider's API (each call creates a checkout or changes a subscription)",
    spec: true,
  },
  webhooks: {
    perUser: null,
    perIp: 100,
    protects:
      "signature checking against forged deliveries: only deliveries that fail verification are counted (missing, malformed, wrong or stale signatures, bodies over the limit); a verified delivery is never refused",
    spec: true,
    counts: "failed_verification",
  },
  api: { perUser: 100, perIp: 200, protects: "the endpoints SPEC §8 names", spec: true },
  /** The operator console's API: a console page makes a few calls per view. */
  admin: { perUser: 1000, perIp: 2000, protects: "the operator API against a leaked token", spec: false },
  /**
   * The OpenAI-compatible API's free reads, per user over all their keys: programs call it far more
   * often than a person clicks. Each key may have its own requests-per-minute limit besides.
   */
  v1: { perUser: 10_000, perIp: null, protects: "the model list against runaway programs", spec: false },
  /** Reports that aggregate the ledger (usage charts, spend by member, CSV exports). */
  reports: { perUser: 600, perIp: 1200, protects: "the database: each report aggregates the ledger", spec: false },
  /** Changes to an account's own settings and resources (keys, organisations, members, alerts, webhook endpoints). */
  writes: { perUser: 300, perIp: 600, protects: "against scripted abuse of account changes", spec: false },
  /** Requests that make this server send an HTTP request elsewhere (a webhook test, a replay). */
  outbound: { perUser: 60, perIp: 120, protects: "third parties: each call sends a request to a URL the caller chose", spec: false },
  /** Redeeming a secret token (an invitation link). */
  tokens: { perUser: 30, perIp: 60, protects: "against guessing tokens", spec: false },
} as const satisfies Record<string, RateLimitCategorySpec>;

export type RateLimitCategory = keyof typeof RATE_LIMIT_CATEGORIES;

export const RATE_LIMIT_HEADER_NAMES = {
  limit: "X-RateLimit-Limit",
  remaining: "X-RateLimit-Remaining",
  reset: "X-RateLimit-Reset",
} as const;

/** Whether a category counts only requests that fail signature verification (see `counts`). */
export function countsFailedVerificationOnly(category: RateLimitCategory): boolean {
  return (RATE_LIMIT_CATEGORIES[category] as RateLimitCategorySpec).counts === "failed_verification";
}
