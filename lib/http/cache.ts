/** Cache-Control values of SPEC §8, applied only to successful responses (errors are never cached). */
export const CACHE = {
  none: "no-store",
  health: "no-cache, no-store, must-revalidate",
  privateMinute: "private, max-age=60",
  privateFiveMinutes: "private, max-age=300",
  publicHour: "public, max-age=3600, s-maxage=3600",
  publicMinuteRevalidate: "public, max-age=60, s-maxage=60, stale-while-revalidate=60",
} as const;

export type CachePolicy = keyof typeof CACHE;
