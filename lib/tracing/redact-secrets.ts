import type { Context } from "@opentelemetry/api";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { withoutCredentials } from "@/lib/credential-shapes";

/** Query values that are credentials: a sign-in token, an OAuth code, a key, a secret. */
const CREDENTIAL_PARAM = /([?&](?:token|code|key|secret|access_token|id_token)=)[^&#\s]*/gi;

/** A text with its credential-shaped values and credential query values replaced. */
export function redactSecrets(text: string): string {
  const out = withoutCredentials(text);
  return out.includes("=") ? out.replace(CREDENTIAL_PARAM, "$1[redacted]") : out;
}

/**
 * Keeps credentials out of traces: Next.js names its request spans after the URL and records it in
 * `http.target`, query string included, so a key someone put in a URL (which the API refuses), or the
 * token or code of a link opened from an old email or an OAuth callback, would be exported. Every
 * span's name and attributes are rewritten as the span starts, before any exporter sees them.
 * (Sign-in links carry their token in the URL's fragment, which never reaches the server.)
 */
export const redactSecretsProcessor: SpanProcessor = {
  onStart(span: Span, _context: Context): void {
    const name = redactSecrets(span.name);
    if (name !== span.name) span.updateName(name);
    for (const [key, value] of Object.entries(span.attributes)) {
      if (typeof value !== "string") continue;
      const redacted = redactSecrets(value);
      if (redacted !== value) span.setAttribute(key, redacted);
    }
  },
  onEnd(_span: ReadableSpan): void {},
  async forceFlush(): Promise<void> {},
  async shutdown(): Promise<void> {},
};
