import type { ZodType } from "zod";
import { flags, type FeatureFlags } from "@/lib/config/flags";
import { AppError, isAppError } from "@/lib/errors";
import { createLogger, withRequestContext, type Logger } from "@/lib/log";
import { tagActiveSpan } from "@/lib/tracing";
import { RATE_LIMIT_HEADER_NAMES } from "@/lib/ratelimit/categories";
import { CACHE } from "./cache";
import { clientIp } from "./client-ip";
import { openAiErrorResponse } from "./openai-error";
import { parseInput } from "./parse-input";
import { requestIdOf } from "./request-id";
import { resolveCaller, UNKNOWN_PATH } from "./resolve-caller";
import { errorResponse, json, redirect } from "./respond";
import { routePattern } from "./route-pattern";
import type { AuthMode, NextRouteHandler, RateOutcome, RouteHandler, RouteRuntime, RouteSpec } from "./route-types";
import { STATUS_BY_CODE, exposesMessage } from "./status";
import { isUnsafeId } from "./unsafe-text";
import { unknownApiPath } from "./unknown-path";
import type { ApiKeyPrincipal } from "@/lib/api-keys/authenticate-api-key";
import { personalAccount, type ActingAccount } from "@/lib/organisations/roles";
import type { ChargeSlot } from "@/lib/db/ai-slots";

export type * from "./route-types";
export { requestIdOf } from "./request-id";
export { routePattern } from "./route-pattern";
export { DEFAULT_MAX_JSON_BODY_BYTES } from "./read-body";

/** A route declaration with its type parameters erased (what the wrapper itself reads). */
type AnyRouteSpec = RouteSpec<ZodType | undefined, ZodType | undefined, AuthMode>;

/** Whether a route's declared feature is on under these flags (no feature: always). */
export function featureOn(feature: AnyRouteSpec["feature"], f: FeatureFlags): boolean {
  if (!feature) return true;
  return typeof feature === "function" ? feature(f) : Boolean(f[feature]);
}


const isInvalidRequest = (code: string) => code === "validation_failed" || code === "payload_too_large" || code === "unsupported_media_type" || code === "bad_request";

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
    if (status >= 500) log.error("request failed", { code: error.code, error });
    const message = exposesMessage(error.code) ? error.message : "Internal server error";
    if (dialect === "openai") return openAiErrorResponse({ code: error.code, message, reason: error.reason, param: error.param, headers: error.headers });
    return errorResponse(status, message, exposesMessage(error.code) ? error.code : "internal", error.headers);
  }
  log.error("unhandled error", { error });
  if (dialect === "openai") return openAiErrorResponse({ code: "internal", message: "Internal server error" });
  return errorResponse(500, "Internal server error", "internal");
}

/**
 * The account a request acts for: an API key's own (an organisation's key acts for the organisation,
 * as the member who made it), a session's active account on routes that declare `account`, else the
 * person's own.
 */
async function actingAccount(runtime: RouteRuntime, spec: AnyRouteSpec, req: Request, userId: string, apiKey: ApiKeyPrincipal | null): Promise<ActingAccount> {
  if (apiKey) return apiKey.memberId ? { id: apiKey.userId, kind: "organisation", role: "member", memberId: apiKey.memberId } : personalAccount(apiKey.userId);
  if (spec.account && runtime.resolveAccount) return runtime.resolveAccount(req, userId, spec.account);
  return personalAccount(userId);
}

export function createRoute<
  Q extends ZodType | undefined = undefined,
  B extends ZodType | undefined = undefined,
  A extends AuthMode = AuthMode,
  R extends ZodType | undefined = undefined,
>(runtime: RouteRuntime, spec: RouteSpec<Q, B, A, R>, handler: RouteHandler<Q, B, A, R>): NextRouteHandler {
  const wrapped: NextRouteHandler = (req, nextCtx) => {
    const requestId = requestIdOf(req);
    // Every line logged while this request is handled carries its id (lib/log.ts).
    return withRequestContext(requestId, () => handle(req, nextCtx, requestId));
  };
  // The declaration with its type parameters erased: what the wrapper reads does not depend on them.
  const declared = spec as unknown as AnyRouteSpec;
  const handle = async (req: Request, nextCtx: Parameters<NextRouteHandler>[1], requestId: string): Promise<Response> => {
    const started = performance.now();
    tagActiveSpan({ "request.id": requestId });
    const url = new URL(req.url);
    const log = createLogger({ method: req.method, path: url.pathname });
    const params: Record<string, string> = {};
    let callerId: string | null = null;
    const extraHeaders = new Headers();
    let rate: RateOutcome | null = null;
    let slot: { release(): void; charge: ChargeSlot | null } | null = null;
    let aiUser: string | null = null;
    let response: Response;
    let form: { body: unknown } | null = null;
    try {
      // The parameters first: whatever the answer (401, 404, 429), the metric's route label is the
      // declared pattern with {name} for each, never the raw path.
      const rawParams = nextCtx?.params ? await nextCtx.params : {};
      for (const [k, v] of Object.entries(rawParams)) params[k] = Array.isArray(v) ? v.join("/") : v;
      if (!featureOn(declared.feature, flags())) throw new AppError("feature_disabled", "Not found");
      const ip = clientIp(req);
      // One resolver per auth mode (resolve-caller.ts): who calls, and whether they may.
      const caller = await resolveCaller({ req, ip, runtime, spec: declared, setHeader: (name, value) => extraHeaders.set(name, value) });
      if (caller === UNKNOWN_PATH) return await unknownApiPath(req, requestId);
      const { user, operator, apiKey } = caller;
      callerId = user?.id ?? operator?.id ?? null;

      if (spec.rateLimit) {
        rate = await runtime.rateLimit(spec.rateLimit, { userId: operator ? (operator.id ?? "admin-api-token") : user?.id, ip });
        if (rate && !rate.allowed) {
          runtime.observe?.({ kind: "rate_limited", category: spec.rateLimit });
          const retryAfter = Math.max(1, rate.reset - Math.floor(Date.now() / 1000));
          throw new AppError("rate_limited", `Rate limit exceeded; retry after ${retryAfter} seconds`, {
            headers: { "Retry-After": String(retryAfter) },
          });
        }
      }

      // A malformed id is an id that names nothing (the same answer as another user's).
      if (Object.values(params).some(isUnsafeId)) throw new AppError("not_found", "Not found");
      // An AI call holds one of its user's slots from before its body is read to its answer's end (on
      // PostgreSQL the count across instances is taken with its reservation: ctx.aiSlot to its charge).
      if (spec.concurrency === "ai" && user && runtime.aiGuard) {
        aiUser = user.id;
        runtime.aiGuard.refuseIfTooManyInvalid(user.id);
        slot = await runtime.aiGuard.acquire(user.id);
      }
      const account = user ? await actingAccount(runtime, declared, req, user.id, apiKey) : null;
      const { query, body, bodyFormat } = await parseInput(declared, req, url);
      if (declared.formPost && bodyFormat === "form") form = { body };
      // The resolver of the route's auth mode found the caller its context promises (resolve-caller.ts).
      const context = {
        req,
        user,
        operator,
        apiKey,
        account,
        query,
        body,
        params,
        requestId,
        log: apiKey ? log.child({ userId: apiKey.userId, keyId: apiKey.keyId }) : user ? log.child({ userId: user.id }) : operator ? log.child({ operator: operator.label }) : log,
        ip,
        setHeader: (name: string, value: string) => extraHeaders.set(name, value),
        bodyFormat,
        aiSlot: slot?.charge ?? null,
      };
      const result: unknown = await handler(context as unknown as Parameters<typeof handler>[0]);
      response = result instanceof Response ? result : form && declared.formPost ? redirect(declared.formPost.next(result as never, form.body as never), 303) : json(result);
      if (response.ok && !response.headers.has("cache-control")) {
        response.headers.set("cache-control", CACHE[spec.cache ?? "none"]);
        // A private answer depends on who asked: a shared browser must not show it to the next account.
        if (spec.cache?.startsWith("private")) response.headers.set("vary", spec.account ? "Cookie, Authorization, X-Account-Id" : "Cookie, Authorization");
      }
    } catch (error) {
      response = form && declared.formPost && isAppError(error) && error.code !== "internal" && !declared.formPost.passThrough?.includes(error.code)
        ? redirect(withQuery(declared.formPost.back(form.body as never), "error", error.message), 303)
        : toErrorResponse(error, log, spec.dialect);
      // Refused at no charge, but read and parsed at ours: counted against the user.
      if (aiUser && isAppError(error) && isInvalidRequest(error.code)) {
        await runtime.aiGuard?.countInvalid(aiUser).catch((e) => log.warn("invalid request not counted", { error: (e as Error).message }));
      }
    }
    // A streamed answer keeps its slot until the stream ends (or its client leaves); any other, no longer.
    if (slot) response = releasingAtEnd(response, slot);
    // Errors are never cached; a handler that answers an error itself may be stricter (health: 503).
    if (!response.ok && !response.headers.has("cache-control")) response.headers.set("cache-control", "no-store");
    extraHeaders.forEach((value, name) => response.headers.set(name, value));
    if (rate) {
      response.headers.set(RATE_LIMIT_HEADER_NAMES.limit, String(rate.limit));
      response.headers.set(RATE_LIMIT_HEADER_NAMES.remaining, String(rate.remaining));
      response.headers.set(RATE_LIMIT_HEADER_NAMES.reset, String(rate.reset));
    }
    response.headers.set("x-request-id", requestId);
    runtime.afterResponse?.();
    try {
      runtime.observe?.({
        kind: "request",
        labels: { route: routePattern(url.pathname, params), method: req.method, status: String(response.status) },
        seconds: (performance.now() - started) / 1000,
        userId: callerId,
      });
    } catch (error) {
      // Recording a metric never costs the client its answer.
      log.warn("request metric not recorded", { error: (error as Error).message });
    }
    return response;
  };
  wrapped.definition = declared;
  if (spec.auth === "operator") wrapped.visibleTo = async (req) => Boolean(await runtime.resolveOperator?.(req));
  return wrapped;
}

