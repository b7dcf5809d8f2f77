import { SpanStatusCode, trace, type Attributes, type Span } from "@opentelemetry/api";
import { processState } from "@/lib/process-state";

/**
 * Spans of our own work (credit reservation and settlement, provider calls, webhook processing,
 * database statements on the hot path), children of the route span Next.js (or the gateway lane) opens. Tracing is on only
 * when instrumentation.ts registered the OpenTelemetry SDK (OTEL_EXPORTER_OTLP_ENDPOINT); otherwise
 * withSpan calls the function directly, with no span object made at all.
 */
const state = processState("tracing", () => ({ enabled: false }));

export function enableTracing(): void {
  state.enabled = true;
}

export function tracingEnabled(): boolean {
  return state.enabled;
}

const tracer = () => trace.getTracer("subscription-ai-backend");

/** Runs `fn` inside a span `name` (status and exceptions recorded); `fn` may add attributes to it. */
export function withSpan<T>(name: string, attributes: Attributes, fn: (span?: Span) => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return fn();
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      const result = await fn(span);
      return result;
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Traces an async iterable (a provider's stream) as one span `name`, open from its first read to its
 * end: child of the span active when the reading starts, ended with its outcome (`describe` adds the
 * attributes of a normal end, `failed` those of an error). With tracing off the iterable is returned
 * as it is: no extra hop per part on the hot path.
 */
export function traceIterable<T>(
  name: string,
  attributes: Attributes,
  source: AsyncIterable<T>,
  outcome: { seen: (part: T) => void; ended: () => Attributes; failed: (error: unknown) => Attributes },
): AsyncIterable<T> {
  if (!tracingEnabled()) return source;
  return {
    async *[Symbol.asyncIterator]() {
      const span = tracer().startSpan(name, { attributes });
      let ended = false;
      try {
        for await (const part of source) {
          outcome.seen(part);
          yield part;
        }
        ended = true;
        span.setAttributes(outcome.ended());
      } catch (error) {
        ended = true;
        span.setAttributes(outcome.failed(error));
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        // Stopped early by its reader.
        if (!ended) span.setAttributes({ ...outcome.ended(), "ai.outcome": "stopped" });
        span.end();
      }
    },
  };
}

/** Puts the request id on the active span (the route span), so a trace and its log lines meet. */
export function tagActiveSpan(attributes: Attributes): void {
  if (!tracingEnabled()) return;
  trace.getActiveSpan()?.setAttributes(attributes);
}
