import { env } from "@/lib/config/env";
import { AppError } from "@/lib/errors";
import { metrics } from "@/lib/metrics";
import { isAbortError } from "./abort";
import { assembleChat } from "./assemble-chat";
import type {
  AiProvider,
  AnsweredBy,
  ChatRequest,
  ChatResult,
  EmbeddingResult,
  ImageRequest,
  ImageResult,
  StreamPart,
  TokenUsage,
  TranscribeRequest,
  TranscriptionResult,
} from "./provider-types";
import { recordRouteAttempt } from "./route-stats";
import { routesFor, routesOffering, type Capability, type Route } from "./routes";
import { aiSettings } from "../settings";
import { failoverOf, reachOf, retryAfterOf, retryAfterSeconds, upstreamError, type FailoverReason } from "./upstream-error";

/**
 * The provider every AI feature calls: each call goes to its model's routes in order (lib/ai/providers/routes.ts).
 * A route failing before the provider accepted the request (connection refused, 429, 5xx, 529
 * overloaded) hands the call to the next route; AI_ROUTE_ATTEMPTS (default: one per route) bounds the
 * attempts, cycling through the routes, and the call's deadline (AI_TIMEOUT_MS) bounds them all. A
 * provider's Retry-After is honoured before that provider is asked again (the attempt waits for it
 * when the deadline allows, else another route goes first). A failure after the provider had the
 * request (a cut answer, an error inside its stream) is never retried: it may be billed. The only
 * exception is AI_ROUTE_TIMEOUT_MS, which gives up on a route that is slow to start answering; that
 * attempt is reported as spent (a stream's `spent` part, SpentAttempts for the rest) so the charge
 * covers it. When every attempt failed: 429 with the shortest Retry-After if the providers were only
 * throttling, else 503. The answer says which route answered (a stream's `route` part when each
 * attempt starts, `route` on the rest), so the charge is settled at that route's price.
 */

/** Routes given up on after the provider had the request (AI_ROUTE_TIMEOUT_MS): each may be billed. */
export interface SpentAttempts {
  spent: AnsweredBy[];
  /** The route of the attempt that ended the call (answered it, or failed it). */
  route: AnsweredBy | null;
}

const attemptsOf = new WeakMap<object, SpentAttempts>();

/** The spent attempts and last route of a call that failed (an error the router threw). */
export function attemptsOfError(error: unknown): SpentAttempts {
  const info = error && typeof error === "object" ? attemptsOf.get(error) : undefined;
  return info ?? { spent: [], route: null };
}

function tag<E>(error: E, info: SpentAttempts): E {
  if (error && typeof error === "object") attemptsOf.set(error, info);
  return error;
}

interface Failure {
  route: Route;
  error: unknown;
  reason: FailoverReason;
}

const answered = (r: Route): AnsweredBy => ({ provider: r.provider, model: r.model });

/** A route timeout of ours (AI_ROUTE_TIMEOUT_MS): the provider had the request; the next route may still be tried. */
const ROUTE_TIMEOUT = "route_timeout";

export function createRouter(adapterFor: (provider: string) => AiProvider): AiProvider {
  function plan(model: string, capability: Capability, what: string): { routes: Route[]; attempts: number } {
    const all = routesFor(model);
    if (all.length === 0)
      throw new AppError("validation_failed", `Invalid body: model: no AI provider is configured for "${model}"`, { param: "model" });
    const routes = routesOffering(model, capability);
    if (routes.length === 0) {
      throw new AppError(
        "validation_failed",
        `The AI provider "${all[0].provider}" of "${model}" does not offer ${what}; route this model to a provider that does (AI_ROUTES)`,
      );
    }
    return { routes, attempts: Math.max(routes.length, env().AI_ROUTE_ATTEMPTS) };
  }

  /**
   * The attempts of one call: which route comes next and when, after each failure. Retry-After is
   * kept per provider: a provider is not asked again before the time it named.
   */
  function attempts(model: string, capability: Capability, what: string, timeoutMs: number) {
    const p = plan(model, capability, what);
    const deadline = Date.now() + timeoutMs;
    const notBefore = new Map<string, number>();
    const failures: Failure[] = [];
    return {
      deadline,
      failures,
      /** The route of attempt i (skipping ahead past a provider that asked us to wait, when another can go now), and how long to wait first. */
      route(i: number): { route: Route; wait: number } {
        let best: { route: Route; wait: number } | null = null;
        for (let k = 0; k < p.routes.length; k++) {
          const route = p.routes[(i + k) % p.routes.length];
          const wait = Math.max(0, (notBefore.get(route.provider) ?? 0) - Date.now());
          if (!best || wait < best.wait) best = { route, wait };
          if (wait === 0) break;
        }
        return best as { route: Route; wait: number };
      },
      /** After a failed attempt: the error to throw now, or nothing (go on). */
      failed(i: number, route: Route, error: unknown, reason: FailoverReason): unknown | null {
        failures.push({ route, error, reason });
        const retryAfter = retryAfterOf(error);
        if (retryAfter) notBefore.set(route.provider, Date.now() + retryAfter);
        if (i + 1 >= p.attempts) return exhausted(failures);
        const next = this.route(i + 1);
        if (Date.now() + next.wait >= deadline - 50) return exhausted(failures);
        metrics().aiFallbacks.inc({ model, provider: route.provider, reason });
        return null;
      },
      /** The time attempt i may take to start answering: the call's remaining deadline, or AI_ROUTE_TIMEOUT_MS when another attempt could follow. */
      budget(i: number): { attemptMs: number; remaining: number } {
        // The first attempt has the whole deadline (its timeout error names the configured time, not a ms less).
        const remaining = i === 0 ? timeoutMs : Math.max(1, deadline - Date.now());
        const perRoute = env().AI_ROUTE_TIMEOUT_MS;
        return { remaining, attemptMs: perRoute > 0 && i + 1 < p.attempts ? Math.min(remaining, perRoute) : remaining };
      },
    };
  }

  /**
   * Runs a call that answers at once on the routes until one answers. A failure the provider may
   * bill is thrown at once, except our own route timeout, whose attempt is counted as spent.
   */
  async function attempt<T>(
    model: string,
    capability: Capability,
    what: string,
    timeoutMs: number,
    call: (adapter: AiProvider, route: Route, attemptMs: number) => Promise<T>,
  ): Promise<{ value: T; route: Route; spent: AnsweredBy[] }> {
    const run = attempts(model, capability, what, timeoutMs);
    const spent: AnsweredBy[] = [];
    for (let i = 0; ; i++) {
      const { route, wait } = run.route(i);
      if (wait > 0) await sleep(wait);
      const { attemptMs, remaining } = run.budget(i);
      const started = performance.now();
      try {
        const value = await call(adapterFor(route.provider), route, attemptMs);
        recordAttempt(model, route, started, "ok");
        return { value, route, spent };
      } catch (error) {
        const reason = failoverOf(error);
        const reach = reachOf(error);
        recordAttempt(model, route, started, isAbortError(error) ? null : reason ? "failover" : "error", error);
        // Our route timeout (the attempt had less than the call's deadline): the provider had it.
        const routeTimedOut = attemptMs < remaining && reason === "timeout";
        if (!reason || isAbortError(error) || (reach === "received" && !routeTimedOut)) throw tag(error, { spent, route: answered(route) });
        const stop = run.failed(i, route, error, reason);
        if (stop) throw tag(stop, { spent, route: answered(route) });
        if (reach === "received") spent.push(answered(route));
      }
    }
  }

  function streamChat(req: ChatRequest): AsyncIterable<StreamPart> {
    const timeoutMs = req.timeoutMs ?? env().AI_TIMEOUT_MS;
    const model = req.model ?? aiSettings().chatModel;
    return {
      async *[Symbol.asyncIterator]() {
        const run = attempts(model, "chat", "chat completion", timeoutMs);
        for (let i = 0; ; i++) {
          const { route, wait } = run.route(i);
          if (wait > 0) await sleep(wait);
          const { attemptMs, remaining } = run.budget(i);
          yield { type: "route", ...answered(route) };
          // The stream has the call's whole deadline; this attempt only `attemptMs` to produce its first text.
          const firstText = new AbortController();
          const signal = req.signal ? AbortSignal.any([req.signal, firstText.signal]) : firstText.signal;
          const it = adapterFor(route.provider)
            .streamChat({ ...req, model: route.upstreamModel, timeoutMs: remaining, signal })
            [Symbol.asyncIterator]();
          const timer = attemptMs < remaining ? setTimeout(() => firstText.abort(new Error(ROUTE_TIMEOUT)), attemptMs) : null;
          const started = performance.now();
          let usage: TokenUsage | null = null;
          let texts = 0;
          let done = false;
          try {
            for (;;) {
              let part: IteratorResult<StreamPart>;
              try {
                part = await it.next();
              } catch (error) {
                // Until the first text a failure the provider does not bill moves on to the next route.
                if (texts > 0) throw error;
                const routeTimedOut = firstText.signal.aborted && !req.signal?.aborted;
                const failure = routeTimedOut ? upstreamError({ kind: "timeout" }, "chat completion", attemptMs, error) : error;
                const reason = failoverOf(failure);
                const reach = reachOf(failure);
                recordAttempt(model, route, started, isAbortError(failure) ? null : reason ? "failover" : "error", failure);
                if (!reason || isAbortError(failure) || (reach === "received" && !routeTimedOut)) throw failure;
                const stop = run.failed(i, route, failure, reason);
                if (stop) throw stop;
                if (reach === "received") yield { type: "spent", route: answered(route), usage };
                break;
              }
              if (part.done) {
                done = true;
                recordAttempt(model, route, started, "ok");
                return;
              }
              if (part.value.type === "text") {
                if (texts++ === 0 && timer) clearTimeout(timer);
              } else if (part.value.type === "usage") usage = part.value;
              yield part.value;
            }
          } finally {
            if (timer) clearTimeout(timer);
            // The consumer stopped early (or the attempt failed): close the provider's answer too.
            if (!done) await it.return?.().catch(() => undefined);
          }
        }
      },
    };
  }

  return {
    name: "router",
    offline: false,
    streamChat,
    chat: (req: ChatRequest): Promise<ChatResult> => assembleChat(streamChat(req), req.model ?? aiSettings().chatModel),

    async embed(texts: string[], signal?: AbortSignal, model = aiSettings().embeddingModel): Promise<EmbeddingResult> {
      const { value, route, spent } = await attempt(model, "embeddings", "embeddings", env().AI_TIMEOUT_MS, (adapter, r) =>
        adapter.embed(texts, signal, r.upstreamModel),
      );
      return { ...value, route: answered(route), spent };
    },

    async transcribe(req: TranscribeRequest): Promise<TranscriptionResult> {
      const timeoutMs = req.timeoutMs ?? env().AI_TIMEOUT_MS;
      const { value, route, spent } = await attempt(
        req.model ?? aiSettings().transcriptionModel,
        "transcription",
        "speech to text",
        timeoutMs,
        (adapter, r, attemptMs) => adapter.transcribe({ ...req, model: r.upstreamModel, timeoutMs: attemptMs }),
      );
      return { ...value, route: answered(route), spent };
    },

    async generateImage(req: ImageRequest): Promise<ImageResult> {
      const timeoutMs = req.timeoutMs ?? env().AI_TIMEOUT_MS;
      const { value, route, spent } = await attempt(req.model, "images", "image generation", timeoutMs, (adapter, r, attemptMs) =>
        adapter.generateImage({ ...req, model: r.upstreamModel, timeoutMs: attemptMs }),
      );
      return { ...value, route: answered(route), spent };
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function recordAttempt(model: string, route: Route, started: number, outcome: "ok" | "failover" | "error" | null, error?: unknown): void {
  if (outcome === null) return;
  metrics().aiRouteAttempts.inc({ model, provider: route.provider, outcome });
  recordRouteAttempt(
    model,
    route.provider,
    performance.now() - started,
    outcome === "ok" ? undefined : ((error as Error)?.message ?? "failed"),
  );
}

/** Every attempt failed: throttled everywhere is the client's 429 with the shortest Retry-After, else 503. */
function exhausted(failures: Failure[]): unknown {
  const last = failures[failures.length - 1];
  const waits = failures.map((f) => retryAfterOf(f.error)).filter((w): w is number => w !== null);
  const shortest = retryAfterSeconds(waits.length ? Math.min(...waits) : null);
  const reach = reachOf(last.error);
  if (failures.every((f) => f.reason === "rate_limited")) {
    const message = (last.error as Error).message.replace(/try again in \d+ seconds/, `try again in ${shortest} seconds`);
    return new AppError("rate_limited", message, { cause: last.error, headers: { "retry-after": String(shortest) }, details: { reach } });
  }
  const message =
    failures.length === 1
      ? (last.error as Error).message
      : `No AI provider could answer after ${failures.length} attempts (${failures.map((f) => `${f.route.provider}: ${f.reason.replace("_", " ")}`).join("; ")})`;
  return new AppError("unavailable", message, { cause: last.error, headers: { "retry-after": String(shortest) }, details: { reach } });
}
