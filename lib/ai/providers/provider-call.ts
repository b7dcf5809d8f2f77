import { AppError } from "@/lib/errors";
import { metrics } from "@/lib/metrics";
import { traceIterable, withSpan } from "@/lib/tracing";
import { AiAbortError } from "./abort";
import type { StreamPart } from "./provider-types";
import { failoverOf } from "./upstream-error";

/**
 * What every adapter does around an upstream call: one deadline for the whole call (the caller's
 * abort or the timeout, a stream's whole body included), the call's metrics by provider, model and
 * endpoint, and the 400 for what a provider does not offer.
 */
export interface Deadline {
  signal: AbortSignal;
  timedOut: () => boolean;
  callerAborted: () => boolean;
  dispose: () => void;
}

export function callDeadline(caller: AbortSignal | undefined, ms: number): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error("timeout"));
  }, ms);
  const onAbort = () => controller.abort(caller?.reason);
  if (caller?.aborted) onAbort();
  else caller?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    callerAborted: () => Boolean(caller?.aborted),
    dispose: () => {
      clearTimeout(timer);
      caller?.removeEventListener("abort", onAbort);
    },
  };
}

/** The kind of a failure for ai_provider_errors_total (timeout, network, 429, 5xx, 4xx, content_policy, invalid_response). */
export function failureKind(error: unknown): string {
  const failover = failoverOf(error);
  if (failover === "timeout" || failover === "network") return failover;
  if (failover === "rate_limited") return "429";
  if (failover) return "5xx";
  if (error instanceof AppError) {
    if (error.code === "content_policy") return "content_policy";
    if (error.code === "rate_limited") return "429";
    if (/unusable answer/.test(error.message)) return "invalid_response";
    return "4xx";
  }
  return "invalid_response";
}

/**
 * Records one provider call: its duration by outcome, a failure by kind, or (firstToken) a stream's
 * time to first text. A caller's abort is none of these.
 */
export function observeProviderCall(
  labels: { model: string; endpoint: string; provider: string; firstToken?: boolean },
  started: number,
  error?: unknown,
): void {
  if (error instanceof AiAbortError) return;
  const m = metrics();
  const seconds = (performance.now() - started) / 1000;
  if (labels.firstToken) {
    m.aiTimeToFirstToken.observe({ model: labels.model, provider: labels.provider }, seconds);
    return;
  }
  m.aiDuration.observe(
    { model: labels.model, endpoint: labels.endpoint, provider: labels.provider, outcome: error ? "error" : "ok" },
    seconds,
  );
  if (error) m.aiErrors.inc({ model: labels.model, provider: labels.provider, kind: failureKind(error) });
}

/** What a provider does not offer: a 400 naming it, so the operator can route the model elsewhere. */
export function unsupported(provider: string, what: string): AppError {
  return new AppError(
    "validation_failed",
    `The AI provider "${provider}" does not offer ${what}; route this model to a provider that does (AI_ROUTES)`,
  );
}

/** An adapter's error mapping: its SDK's failure as the error the caller sees (AppError, or AiAbortError for the caller's abort). */
export type MapProviderError = (error: unknown, what: string, d: Deadline, timeoutMs: number, opened?: boolean) => Error;

export interface ProviderCall {
  provider: string;
  /** Words for the error messages ("chat completion", "embedding"). */
  what: string;
  model: string;
  endpoint: string;
  signal: AbortSignal | undefined;
  timeoutMs: number;
  mapError: MapProviderError;
}

/**
 * One upstream call that answers at once (not a stream), with everything every adapter does around
 * it: its `ai.provider.<endpoint>` span (model, provider, outcome, tokens), one deadline, the metrics
 * by outcome, and the adapter's error mapping.
 */
export function runProviderCall<T>(call: ProviderCall, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const labels = { model: call.model, endpoint: call.endpoint, provider: call.provider };
  return withSpan(`ai.provider.${call.endpoint}`, { "ai.model": call.model, "ai.provider": call.provider }, async (span) => {
    const d = callDeadline(call.signal, call.timeoutMs);
    const started = performance.now();
    try {
      const result = await fn(d.signal);
      observeProviderCall(labels, started);
      const usage = (result as { usage?: { promptTokens?: number; completionTokens?: number } }).usage;
      span?.setAttributes({
        "ai.outcome": "ok",
        "ai.tokens.prompt": usage?.promptTokens ?? 0,
        "ai.tokens.completion": usage?.completionTokens ?? 0,
      });
      return result;
    } catch (error) {
      const mapped = call.mapError(error, call.what, d, call.timeoutMs);
      observeProviderCall(labels, started, mapped);
      span?.setAttribute("ai.outcome", mapped instanceof AiAbortError ? "aborted" : failureKind(mapped));
      throw mapped;
    } finally {
      d.dispose();
    }
  });
}

/**
 * A provider's chat stream under its `ai.provider.chat` span (model, provider, outcome, the last
 * usage it reported), like runProviderCall's span of a call that answers at once.
 */
export function traceChatStream(provider: string, model: string, source: AsyncIterable<StreamPart>): AsyncIterable<StreamPart> {
  let promptTokens = 0;
  let completionTokens = 0;
  return traceIterable("ai.provider.chat", { "ai.model": model, "ai.provider": provider }, source, {
    seen: (part) => {
      if (part.type === "usage") {
        promptTokens = part.promptTokens;
        completionTokens = part.completionTokens;
      }
    },
    ended: () => ({ "ai.outcome": "ok", "ai.tokens.prompt": promptTokens, "ai.tokens.completion": completionTokens }),
    failed: (error) => ({
      "ai.outcome": error instanceof AiAbortError ? "aborted" : failureKind(error),
      "ai.tokens.prompt": promptTokens,
      "ai.tokens.completion": completionTokens,
    }),
  });
}

export interface StreamCall {
  provider: string;
  model: string;
  signal: AbortSignal | undefined;
  timeoutMs: number;
  /** Told whether the stream had opened (an error after it means the provider had the request). */
  mapError: MapProviderError;
}

/**
 * A provider's chat stream with everything every adapter does around it, the twin of
 * runProviderCall: its `ai.provider.chat` span, one deadline, the first-token and call metrics by
 * outcome, a stream that ended because it was aborted reported as such, and the adapter's error
 * mapping. The adapter gives how to open the stream and the parts of each of its events (a
 * generator: it may keep the running usage between events, and throws on a refusal).
 */
export function runProviderStream<E>(
  call: StreamCall,
  open: (signal: AbortSignal) => Promise<AsyncIterable<E>> | AsyncIterable<E>,
  partsOf: (event: E) => Iterable<StreamPart>,
): AsyncIterable<StreamPart> {
  const labels = { model: call.model, endpoint: "chat", provider: call.provider };
  const upstream: AsyncIterable<StreamPart> = {
    async *[Symbol.asyncIterator]() {
      const d = callDeadline(call.signal, call.timeoutMs);
      const started = performance.now();
      let firstText = true;
      let opened = false;
      try {
        const events = await open(d.signal);
        opened = true;
        for await (const event of events) {
          for (const part of partsOf(event)) {
            if (firstText && part.type === "text") {
              firstText = false;
              observeProviderCall({ ...labels, firstToken: true }, started);
            }
            yield part;
          }
        }
        // An aborted answer can end its iteration quietly: report why it ended.
        if (d.signal.aborted) throw new Error("stream aborted");
        observeProviderCall(labels, started);
      } catch (error) {
        const mapped = call.mapError(error, "chat completion", d, call.timeoutMs, opened);
        observeProviderCall(labels, started, mapped);
        throw mapped;
      } finally {
        // A consumer that stops early exits the for-await above, whose return() closes the upstream answer.
        d.dispose();
      }
    },
  };
  return traceChatStream(call.provider, call.model, upstream);
}
