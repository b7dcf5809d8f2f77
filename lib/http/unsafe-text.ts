/**
 * Text no route can store: a NUL character (PostgreSQL text and jsonb refuse it: error 22021 / 22P05)
 * or a lone UTF-16 surrogate (not a character; it has no UTF-8 form). The route wrapper refuses both
 * in every query parameter and JSON body before any schema or handler sees them, so no route needs
 * its own check.
 */
const UNSAFE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Path segments (ids) carry no control character at all. */
const UNSAFE_ID = /[\u0000-\u001f\u007f]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isUnsafeText(value: string): boolean {
  return UNSAFE.test(value);
}

export function isUnsafeId(value: string): boolean {
  return UNSAFE_ID.test(value);
}

/** The path ("messages.0.content") of the first string or key holding unsafe text, or null. */
export function findUnsafeText(value: unknown, path: string[] = [], depth = 0): string | null {
  if (typeof value === "string") return isUnsafeText(value) ? path.join(".") || "(value)" : null;
  if (value === null || typeof value !== "object" || depth > 64) return null;
  const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  for (const [key, child] of entries) {
    if (isUnsafeText(key)) return [...path, "(key)"].join(".");
    const found = findUnsafeText(child, [...path, key], depth + 1);
    if (found) return found;
  }
  return null;
}
