import { createHash, randomBytes } from "node:crypto";

/**
 * An API key's secret: "sk-" and 43 base62 characters (32 random bytes, 256 bits). It carries full
 * entropy, so it is stored as its SHA-256 only and found by one indexed lookup (no slow hash needed:
 * nothing can be guessed). The prefix and last four characters are kept for display.
 */
export const KEY_PREFIX = "sk-";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const LENGTH = 43; // ceil(256 / log2(62))

export function newKeySecret(): string {
  // Rejection sampling: each character uniform over the 62 (248 = 4 x 62 keeps the modulo unbiased).
  let out = "";
  while (out.length < LENGTH) {
    for (const byte of randomBytes(64)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === LENGTH) break;
    }
  }
  return `${KEY_PREFIX}${out}`;
}

export function hashKeySecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** What a key shows of itself: "sk-AbCd" and its last four characters. */
export function keyDisplay(secret: string): { prefix: string; lastFour: string } {
  return { prefix: secret.slice(0, KEY_PREFIX.length + 4), lastFour: secret.slice(-4) };
}

/** Looks like one of our keys (anything else is not even looked up). */
export function isKeySecret(value: string): boolean {
  return (
    value.length === KEY_PREFIX.length + LENGTH && value.startsWith(KEY_PREFIX) && /^[0-9A-Za-z]+$/.test(value.slice(KEY_PREFIX.length))
  );
}

/** A key anywhere in a text (an URL's query, a log line). */
export const KEY_PATTERN = /sk-[0-9A-Za-z]{43}/;
