import { env } from "@/lib/config/env";
import { AppError } from "@/lib/errors";
import { metrics } from "@/lib/metrics";
import { isAbortError } from "./abort";
import type { AiProvider, ChatRequest, ChatResult, ImageRequest, ImageResult, StreamPart, TranscribeRequest, TranscriptionResult } from "./provider-types";
import { recordRouteAttempt } from "./route-stats";
import { routesFor, type Route } from "./routes";
import { aiSettings } from "./settings";
import { failoverOf, retryAfterOf, retryAfterSeconds, upstreamError, type FailoverReason } from "./upstream-error";

/**
 * The provider every AI feature calls: each call goes to its model's routes in order (lib/ai/routes.ts).
 * A route failing before anything reached the client (connection error, timeout, 429, 5xx, 529
 * overloaded) hands the call to the next route; AI_ROUTE_ATTEMPTS (default: one per route) bounds the
 * attempts, cycling through the routes, and the call's deadline (AI_TIMEOUT_MS) bounds them all: a
 * Retry-After is waited for before the same provider is tried again only when it fits. Once a stream
 * has produced text, nothing is retried. A refusal, a rejected key or a bad request is not retried.
 * When every attempt failed: 429 with Retry-After if the providers were only throttling, else 503.
 * The answer says which route answered (ChatResult.route, a stream's "route" part), so the charge is
 * settled at that route's price.
 */
type Capability = "chat" | "embeddings" | "images" | "transcription";

interface Failure {
  route: Route;
  error: unknown;
  reason: FailoverReason;
}

export function createRouter(adapterFor: (provider: string) => AiProvider): AiProvider {
  const capable = (route: Route, capability: Capability) => adapterFor(route.provider).capabilities?.[capability] ?? true;

  function plan(model: string, capability: Capability, what: string): { routes: Route[]; attempts: number } {
    const all = routesFor(model);
    if (all.length === 0) throw new AppError("validation_failed", `Invalid body: model: no AI provider is configured for "${model}"`, { param: "model" });
    const routes = all.filter((r) => capable(r, capability));
    if (routes.length === 0) {
      throw new AppError("validation_failed", `The AI provider "${all[0].provider}" of "${model}" does not offer ${what}; route this model to a provider that does (AI_ROUTES)`);
    }
    return { routes, attempts: Math.max(routes.length, env().AI_ROUTE_ATTEMPTS) };
  }

  /** After a failed attempt: the error to throw now, or how long to wait before the next attempt. */
  function next(model: string, failures: Failure[], attempt: number, p: { routes: Route[]; attempts: number }, deadline: number): { wait: number } | { error: unknown } {
    const last = failures[failures.length - 1];
    const following = p.routes[(attempt + 1) % p.routes.length];
    let wait = 0;
    // Throttled: wait as asked before asking the same provider again, if the deadline allows it.
    const retryAfter = retryAfterOf(last.error);
    if (retryAfter && following.provider === last.route.provider) wait = retryAfter;
    if (attempt + 1 >= p.attempts || Date.now() + wait >= deadline - 50) return { error: exhausted(failures) };
    metrics().aiFallbacks.inc({ model, provider: last.route.provider, reason: last.reason });
    return { wait };
  }

  /**
   * Runs `call` on the routes until one answers; the error of a call that cannot be retried is thrown
   * at once. `call` gets the time this attempt may take to start answering: the call's remaining
   * deadline, or AI_ROUTE_TIMEOUT_MS when set and another attempt would follow.
   */
  async function attempt<T>(model: string, capability: Capability, what: string, timeoutMs: number, call: (adapter: AiProvider, route: Route, attemptMs: number, remainingMs: number) => Promise<T>): Promise<{ value: T; route: Route }> {
    const p = plan(model, capability, what);
    const deadline = Date.now() + timeoutMs;
    const perRoute = env().AI_ROUTE_TIMEOUT_MS;
    const failures: Failure[] = [];
    for (let i = 0; ; i++) {
      const route = p.routes[i % p.routes.length];
      const started = performance.now();
      // The first attempt has the whole deadline (its timeout error names the configured time, not a ms less).
      const remaining = i === 0 ? timeoutMs : Math.max(1, deadline - Date.now());
      const attemptMs = perRoute > 0 && i + 1 < p.attempts ? Math.min(remaining, perRoute) : remaining;
      try {
        const value = await call(adapterFor(route.provider), route, attemptMs, remaining);
        recordAttempt(model, route, started, "ok");
        return { value, route };
      } catch (error) {
        const reason = failoverOf(error);
        recordAttempt(model, route, started, isAbortError(error) ? null : reason ? "failover" : "error", error);
        if (!reason || isAbortError(error)) throw error;
        failures.push({ route, error, reason });
        const step = next(model, failures, i, p, deadline);
        if ("error" in step) throw step.error;
        if (step.wait > 0) await new Promise((resolve) => setTimeout(resolve, step.wait));
      }
    }
  }

  return {
    name: "router",
    offline: false,

    async chat(req: ChatRequest): Promise<ChatResult> {
      const timeoutMs = req.timeoutMs ?? env().AI_TIMEOUT_MS;
      const { value, route } = await attempt(req.model ?? aiSettings().chatModel, "chat", "chat completion", timeoutMs, (adapter, r, attemptMs) =>
        adapter.chat({ ...req, model: r.upstreamModel, timeoutMs: attemptMs }),
      );
      return { ...value, route: { provider: route.provider, model: route.model } };
    },

    streamChat(req: ChatRequest): AsyncIterable<StreamPart> {
      const timeoutMs = req.timeoutMs ?? env().AI_TIMEOUT_MS;
      const model = req.model ?? aiSettings().chatModel;
      return {
        async *[Symbol.asyncIterator]() {
          // Until the first text, a failure moves on to the next route; after it, nothing is retried.
          const { value, route } = await attempt(model, "chat", "chat stream", timeoutMs, async (adapter, r, attemptMs, remaining) => {
            // The stream has the call's whole deadline; this attempt only `attemptMs` to produce its first text.
            const firstText = new AbortController();
            const signal = req.signal ? AbortSignal.any([req.signal, firstText.signal]) : firstText.signal;
            const it = adapter.streamChat({ ...req, model: r.upstreamModel, timeoutMs: remaining, signal })[Symbol.asyncIterator]();
            const timer = attemptMs < remaining ? setTimeout(() => firstText.abort(new Error("first text timeout")), attemptMs) : null;
            const head: StreamPart[] = [];
            try {
              for (;;) {
                const part = await it.next();
                if (part.done) break;
                head.push(part.value);
                if (part.value.type === "text") break;
              }
            } catch (error) {
              await it.return?.().catch(() => undefined);
              // Our own first-text timer, not the client: this route timed out.
              if (firstText.signal.aborted && !req.signal?.aborted) throw upstreamError({ kind: "timeout" }, "chat stream", attemptMs, error);
              throw error;
            } finally {
              if (timer) clearTimeout(timer);
            }
            return { it, head };
          });
          let done = false;
          try {
            yield { type: "route", provider: route.provider, model: route.model };
            yield* value.head;
            for (;;) {
              const part = await value.it.next();
              if (part.done) {
                done = true;
                return;
              }
              yield part.value;
            }
          } finally {
            // The consumer stopped early (or failed): close the provider's answer too.
            if (!done) await value.it.return?.().catch(() => undefined);
          }
        },
      };
    },

    async embed(texts: string[], signal?: AbortSignal, model = aiSettings().embeddingModel) {
      const { value, route } = await attempt(model, "embeddings", "embedding", env().AI_TIMEOUT_MS, (adapter, r) => adapter.embed(texts, signal, r.upstreamModel));
      return value ? { ...value, route: { provider: route.provider, model: route.model } } : null;
    },

    async transcribe(req: TranscribeRequest): Promise<TranscriptionResult> {
      const timeoutMs = req.timeoutMs ?? env().AI_TIMEOUT_MS;
      const { value, route } = await attempt(req.model ?? aiSettings().transcriptionModel, "transcription", "speech to text", timeoutMs, (adapter, r, attemptMs) =>
        adapter.transcribe({ ...req, model: r.upstreamModel, timeoutMs: attemptMs }),
      );
      return { ...value, route: { provider: route.provider, model: route.model } };
    },

    async generateImage(req: ImageRequest): Promise<ImageResult> {
      const timeoutMs = req.timeoutMs ?? env().AI_TIMEOUT_MS;
      const { value, route } = await attempt(req.model, "images", "image generation", timeoutMs, (adapter, r, attemptMs) =>
        adapter.generateImage({ ...req, model: r.upstreamModel, timeoutMs: attemptMs }),
      );
      return { ...value, route: { provider: route.provider, model: route.model } };
    },
  };
}

function recordAttempt(model: string, route: Route, started: number, outcome: "ok" | "failover" | "error" | null, error?: unknown): void {
  if (outcome === null) return;
  metrics().aiRouteAttempts.inc({ model, provider: route.provider, outcome });
  recordRouteAttempt(model, route.provider, performance.now() - started, outcome === "ok" ? undefined : (error as Error)?.message ?? "failed");
}

/** Every attempt failed: throttled everywhere is the client's 429 (with Retry-After), else 503. */
function exhausted(failures: Failure[]): unknown {
  const last = failures[failures.length - 1];
  if (failures.every((f) => f.reason === "rate_limited")) return last.error;
  const waits = failures.map((f) => retryAfterOf(f.error)).filter((w): w is number => w !== null);
  const message =
    failures.length === 1
      ? (last.error as Error).message
      : `No AI provider could answer after ${failures.length} attempts (${failures.map((f) => `${f.route.provider}: ${f.reason.replace("_", " ")}`).join("; ")})`;
  return new AppError("unavailable", message, {
    cause: last.error,
    headers: { "retry-after": String(retryAfterSeconds(waits.length ? Math.min(...waits) : null)) },
  });
}
