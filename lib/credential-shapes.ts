/**
 * Values shaped like credentials, wherever they appear in a text we send or export: our API keys and
 * other vendors' (sk-…, sk-proj-…, sk-ant-…, Google's AIza…, GitHub's, Slack's, Stripe-, Resend- and
 * Svix-style prefixed secrets), JSON web tokens, a Bearer credential, and any long opaque token (40+
 * letters, digits, + or _ in a row: base64 or hex, never a path or an id with its hyphens). Error
 * messages and spans never carry one back: a key pasted into the wrong field must not be echoed to
 * whoever reads the answer or the trace.
 */
const CREDENTIAL_SHAPES: RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g,
  /\b(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\b(?:whsec|re|rk|pk|sk)_(?:live_|test_)?[A-Za-z0-9_]{16,}/g,
  /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/gi,
  /[A-Za-z0-9+_]{40,}={0,2}/g,
];

export const REDACTED_CREDENTIAL = "[redacted]";

/** Cheap first test: every shape above holds a run of 16+ token characters or a "Bearer". */
const MAY_HOLD = /[A-Za-z0-9_-]{16,}|bearer/i;

/** The text with every credential-shaped value replaced by [redacted]. */
export function withoutCredentials(text: string): string {
  if (!MAY_HOLD.test(text)) return text;
  let out = text;
  for (const shape of CREDENTIAL_SHAPES) out = out.replace(shape, REDACTED_CREDENTIAL);
  return out;
}
