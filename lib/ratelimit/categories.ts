/** Rate-limit categories of SPEC §8: fixed one-hour window, per user and per IP (null: not limited). */
export const RATE_LIMIT_WINDOW_MS = 60 * 60 * 1000;

export const RATE_LIMIT_CATEGORIES = {
  upload: { perUser: 10, perIp: 20 },
  email: { perUser: 5, perIp: 10 },
  contact: { perUser: null, perIp: 3 },
  payments: { perUser: 20, perIp: null },
  webhooks: { perUser: null, perIp: 100 },
  api: { perUser: 100, perIp: 200 },
  /** The operator console's API (not in SPEC §8): a console page makes a few calls per view. */
  admin: { perUser: 1000, perIp: 2000 },
  /**
   * The OpenAI-compatible API (/v1, not in SPEC §8), per user over all their keys: programs call it far
   * more often than a person clicks. Each key may have its own requests-per-minute limit besides.
   */
  v1: { perUser: 10_000, perIp: null },
} as const satisfies Record<string, { perUser: number | null; perIp: number | null }>;

export type RateLimitCategory = keyof typeof RATE_LIMIT_CATEGORIES;

export const RATE_LIMIT_HEADER_NAMES = {
  limit: "X-RateLimit-Limit",
  remaining: "X-RateLimit-Remaining",
  reset: "X-RateLimit-Reset",
} as const;
