import type { Context } from "@opentelemetry/api";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace-base";

/** API keys (sk- and 43 base62 characters) anywhere in a text. */
const SECRET = /sk-[0-9A-Za-z]{43}/g;
const REDACTED = "sk-[redacted]";

/**
 * Keeps API keys out of traces: Next.js names its request spans after the URL and records it in
 * `http.target`, query string included, so a key someone put in a URL (which the API refuses) would
 * be exported. Every span's name and attributes are rewritten as the span starts, before any
 * exporter sees them.
 */
export const redactSecretsProcessor: SpanProcessor = {
  onStart(span: Span, _context: Context): void {
    if (span.name.includes("sk-")) span.updateName(span.name.replace(SECRET, REDACTED));
    for (const [key, value] of Object.entries(span.attributes)) {
      if (typeof value === "string" && value.includes("sk-")) span.setAttribute(key, value.replace(SECRET, REDACTED));
    }
  },
  onEnd(_span: ReadableSpan): void {},
  async forceFlush(): Promise<void> {},
  async shutdown(): Promise<void> {},
};
