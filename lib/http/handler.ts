import type { ZodType } from "zod";
import { databaseUnavailable, isDatabaseUnavailable, isDatabaseUnreachable, recordDatabaseFailure } from "@/lib/db/outage";
import { isAppError } from "@/lib/errors";
import { createLogger, withRequestContext, type Logger } from "@/lib/log";
import { tagActiveSpan } from "@/lib/tracing";
import { RATE_LIMIT_HEADER_NAMES } from "@/lib/ratelimit/categories";
import { CACHE } from "./cache";
import { openAiErrorResponse } from "./openai-error";
import { requestIdOf } from "./request-id";
import { errorResponse, json, redirect } from "./respond";
import { routePattern } from "./route-pattern";
import { countFailedVerification, initialState, routeSteps, STEPS, type AnyRouteSpec, type RouteState } from "./route-steps";
import type { NextRouteHandler, RouteHandler, RouteRuntime, RouteSpec, AuthMode } from "./route-types";
import { STATUS_BY_CODE, exposesMessage } from "./status";

export type * from "./route-types";
export { requestIdOf } from "./request-id";
export { routePattern } from "./route-pattern";
export { featureOn, routeSteps } from "./route-steps";
export { DEFAULT_MAX_JSON_BODY_BYTES } from "./read-body";

const isInvalidRequest = (code: string) =>
  code === "validation_failed" || code === "payload_too_large" || code === "unsupported_media_type" || code === "bad_request";

/** The response, releasing `slot` once its body is sent (at once for an answer that is not a stream). */
function releasingAtEnd(response: Response, slot: { release(): void }): Response {
  if (!response.body || !String(response.headers.get("content-type")).startsWith("text/event-stream")) {
    slot.release();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          slot.release();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        slot.release();
        controller.error(error);
      }
    },
    cancel(reason) {
      slot.release();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** A path with one more query parameter. */
function withQuery(path: string, name: string, value: string): string {
  return `${path}${path.includes("?") ? "&" : "?"}${name}=${encodeURIComponent(value)}`;
}

export function toErrorResponse(error: unknown, log: Logger, dialect?: "openai"): Response {
  if (isAppError(error)) {
    const status = STATUS_BY_CODE[error.code];
    if (isDatabaseUnavailable(error)) log.debug("refused: database unavailable");
    else if (status >= 500) log.error("request failed", { code: error.code, error });
    const message = exposesMessage(error.code) ? error.message : "Internal server error";
    if (dialect === "openai")
      return openAiErrorResponse({ code: error.code, message, reason: error.reason, param: error.param, headers: error.headers });
    return errorResponse(status, message, exposesMessage(error.code) ? error.code : "internal", error.headers);
  }
  if (isDatabaseUnreachable(error)) {
    // An outage: a 503 the client may retry, and the breaker's few log lines instead of a stack per request.
    recordDatabaseFailure(error);
    return toErrorResponse(databaseUnavailable(), log, dialect);
  }
  log.error("unhandled error", { error });
  if (dialect === "openai") return openAiErrorResponse({ code: "internal", message: "Internal server error" });
  return errorResponse(500, "Internal server error", "internal");
}

/**
 * The route wrapper (lib/http/route.ts makes Node routes with it, edge-route.ts edge ones): a request
 * goes through its route's steps (route-steps.ts: feature, caller, rate limit, ids, AI slot, account,
 * input), then its handler; its answer then gets what every answer gets (cache policy, the rate-limit
 * headers, the request id, metrics and the access line). Any step may refuse with an AppError, which
 * answers in the route's dialect; nothing after it runs.
 */
export function createRoute<
  Q extends ZodType | undefined = undefined,
  B extends ZodType | undefined = undefined,
  A extends AuthMode = AuthMode,
  R extends ZodType | undefined = undefined,
>(runtime: RouteRuntime, spec: RouteSpec<Q, B, A, R>, handler: RouteHandler<Q, B, A, R>): NextRouteHandler {
  // The declaration with its type parameters erased: what the wrapper reads does not depend on them.
  const declared = spec as unknown as AnyRouteSpec;
  const steps = routeSteps(declared).map((name) => STEPS[name]);

  /** The handler's answer: a Response, a value sent as JSON, or a form post's 303. */
  const run = async (s: RouteState): Promise<Response> => {
    const { user, operator, apiKey } = s.caller;
    const context = {
      req: s.req,
      user,
      operator,
      apiKey,
      account: s.account,
      query: s.query,
      body: s.body,
      params: s.params,
      requestId: s.requestId,
      log: s.log,
      ip: s.ip,
      setHeader: s.setHeader,
      bodyFormat: s.bodyFormat,
      aiSlot: s.slot?.charge ?? null,
    };
    const result: unknown = await handler(context as unknown as Parameters<typeof handler>[0]);
    const response =
      result instanceof Response
        ? result
        : s.form && declared.formPost
          ? redirect(declared.formPost.next(result as never, s.form.body as never), 303)
          : json(result);
    if (response.ok && !response.headers.has("cache-control")) {
      response.headers.set("cache-control", CACHE[spec.cache ?? "none"]);
      // A private answer depends on who asked: a shared browser must not show it to the next account.
      if (spec.cache?.startsWith("private"))
        response.headers.set("vary", spec.account ? "Cookie, Authorization, X-Account-Id" : "Cookie, Authorization");
    }
    return response;
  };

  /** A refusal's answer: a form post goes back with error=, anything else in the route's dialect. */
  const refused = async (failure: unknown, s: RouteState): Promise<Response> => {
    const error = await countFailedVerification(failure, s, declared, runtime).catch((e: unknown) => {
      s.log.warn("failed verification not counted", { error: (e as Error).message });
      return failure;
    });
    const response =
      s.form && declared.formPost && isAppError(error) && error.code !== "internal" && !declared.formPost.passThrough?.includes(error.code)
        ? redirect(withQuery(declared.formPost.back(s.form.body as never), "error", error.message), 303)
        : toErrorResponse(error, s.log, spec.dialect);
    // Refused at no charge, but read and parsed at ours: counted against the user.
    if (s.aiUser && isAppError(error) && isInvalidRequest(error.code)) {
      await runtime.aiGuard
        ?.countInvalid(s.aiUser)
        .catch((e) => s.log.warn("invalid request not counted", { error: (e as Error).message }));
    }
    return response;
  };

  /** What every answer gets once it is decided. */
  const finish = (answer: Response, s: RouteState, extraHeaders: Headers, started: number): Response => {
    // A streamed answer keeps its slot until the stream ends (or its client leaves); any other, no longer.
    const response = s.slot ? releasingAtEnd(answer, s.slot) : answer;
    // Errors are never cached; a handler that answers an error itself may be stricter (health: 503).
    if (!response.ok && !response.headers.has("cache-control")) response.headers.set("cache-control", "no-store");
    extraHeaders.forEach((value, name) => response.headers.set(name, value));
    if (s.rate) {
      response.headers.set(RATE_LIMIT_HEADER_NAMES.limit, String(s.rate.limit));
      response.headers.set(RATE_LIMIT_HEADER_NAMES.remaining, String(s.rate.remaining));
      response.headers.set(RATE_LIMIT_HEADER_NAMES.reset, String(s.rate.reset));
    }
    response.headers.set("x-request-id", s.requestId);
    runtime.afterResponse?.();
    try {
      const { user, operator } = s.caller;
      runtime.observe?.({
        kind: "request",
        labels: { route: routePattern(s.url.pathname, s.params), method: s.req.method, status: String(response.status) },
        seconds: (performance.now() - started) / 1000,
        userId: user?.id ?? operator?.id ?? null,
      });
    } catch (error) {
      // Recording a metric never costs the client its answer.
      s.log.warn("request metric not recorded", { error: (error as Error).message });
    }
    return response;
  };

  const handle = async (req: Request, nextCtx: Parameters<NextRouteHandler>[1], requestId: string): Promise<Response> => {
    const started = performance.now();
    tagActiveSpan({ "request.id": requestId });
    const url = new URL(req.url);
    const extraHeaders = new Headers();
    const s = initialState(req, url, requestId, createLogger({ method: req.method, path: url.pathname }), {}, (name, value) =>
      extraHeaders.set(name, value),
    );
    let answer: Response;
    try {
      // The parameters first: whatever the answer (401, 404, 429), the metric's route label is the
      // declared pattern with {name} for each, never the raw path.
      const rawParams = nextCtx?.params ? await nextCtx.params : {};
      for (const [k, v] of Object.entries(rawParams)) s.params[k] = Array.isArray(v) ? v.join("/") : v;
      for (const step of steps) {
        const ended = await step(s, declared, runtime);
        // An operator route asked by anyone else: answered as a path no route serves, as it is.
        if (ended) return ended;
      }
      answer = await run(s);
    } catch (error) {
      answer = await refused(error, s);
    }
    return finish(answer, s, extraHeaders, started);
  };

  const wrapped: NextRouteHandler = (req, nextCtx) => {
    const requestId = requestIdOf(req);
    // Every line logged while this request is handled carries its id (lib/log.ts).
    return withRequestContext(requestId, () => handle(req, nextCtx, requestId));
  };
  wrapped.definition = declared;
  if (spec.auth === "operator") wrapped.visibleTo = async (req) => Boolean(await runtime.resolveOperator?.(req));
  return wrapped;
}
