import type { Context } from "@opentelemetry/api";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace-base";

/** API keys (sk- and 43 base62 characters) anywhere in a text. */
const SECRET = /sk-[0-9A-Za-z]{43}/g;
const REDACTED = "sk-[redacted]";
/** Query values that are credentials: a sign-in token, an OAuth code, a key, a secret. */
const CREDENTIAL_PARAM = /([?&](?:token|code|key|secret|access_token|id_token)=)[^&#\s]*/gi;

/** A text with its API keys and credential query values replaced. */
export function redactSecrets(text: string): string {
  let out = text.includes("sk-") ? text.replace(SECRET, REDACTED) : text;
  if (out.includes("=")) out = out.replace(CREDENTIAL_PARAM, "$1[redacted]");
  return out;
}

const mayHold = (text: string) => text.includes("sk-") || text.includes("=");

/**
 * Keeps credentials out of traces: Next.js names its request spans after the URL and records it in
 * `http.target`, query string included, so a key someone put in a URL (which the API refuses), or the
 * token or code of a link opened from an old email or an OAuth callback, would be exported. Every
 * span's name and attributes are rewritten as the span starts, before any exporter sees them.
 * (Sign-in links carry their token in the URL's fragment, which never reaches the server.)
 */
export const redactSecretsProcessor: SpanProcessor = {
  onStart(span: Span, _context: Context): void {
    if (mayHold(span.name)) span.updateName(redactSecrets(span.name));
    for (const [key, value] of Object.entries(span.attributes)) {
      if (typeof value === "string" && mayHold(value)) span.setAttribute(key, redactSecrets(value));
    }
  },
  onEnd(_span: ReadableSpan): void {},
  async forceFlush(): Promise<void> {},
  async shutdown(): Promise<void> {},
};
