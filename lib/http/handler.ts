import { z, type ZodType } from "zod";
import type { Operator } from "@/lib/auth/resolve-operator";
import type { ApiKeyPrincipal } from "@/lib/api-keys/authenticate-api-key";
import type { ApiKeyAuth } from "@/lib/api-keys/resolve-key-request";
import type { KeyKind } from "@/lib/api-keys/schemas";
import type { SessionUser } from "@/lib/auth/session";
import { flags, type FeatureFlags, type FlagName } from "@/lib/config/flags";
import { AppError, isAppError } from "@/lib/errors";
import { createLogger, withRequestContext, type Logger } from "@/lib/log";
import { tagActiveSpan } from "@/lib/tracing";
import { RATE_LIMIT_HEADER_NAMES, type RateLimitCategory } from "@/lib/ratelimit/categories";
import { CACHE, type CachePolicy } from "./cache";
import { clientIp } from "./client-ip";
import { findUnsafeText, isUnsafeId } from "./unsafe-text";
import { requestIdOf } from "./request-id";
import { openAiErrorResponse } from "./openai-error";
import { errorResponse, json } from "./respond";
import { unknownApiPath } from "./unknown-path";
import { DEFAULT_MAX_JSON_BODY_BYTES, FORM_TYPES, readFormBody, readJsonBody } from "./read-body";
import { routePattern } from "./route-pattern";

export { requestIdOf } from "./request-id";
export { routePattern } from "./route-pattern";
export { DEFAULT_MAX_JSON_BODY_BYTES } from "./read-body";
import { STATUS_BY_CODE, exposesMessage } from "./status";

export interface RateOutcome {
  allowed: boolean;
  limit: number;
  remaining: number;
  reset: number;
}

/** What the wrapper reports for metrics (Node routes record them; edge routes have no metrics). */
export type RouteObservation =
  | { kind: "request"; labels: { route: string; method: string; status: string }; seconds: number }
  | { kind: "rate_limited"; category: RateLimitCategory };

/** A session's user as the wrapper resolved it: `locked` accounts may read but not write. */
export type ResolvedUser = SessionUser & { locked?: boolean };

/** What the runtime provides: Node routes resolve sessions, count rate limits and record metrics; edge routes none of it. */
export interface RouteRuntime {
  resolveUser: (req: Request) => Promise<ResolvedUser | null>;
  /** Operator routes only (auth "operator"); absent: nobody is an operator. */
  resolveOperator?: (req: Request) => Promise<Operator | null>;
  /**
   * Called once the response is built: keeps the request alive for background work its handler left
   * (settlements written after the answer), through Next's after(). Absent: nothing is waited for.
   */
  afterResponse?: () => void;
  rateLimit: (category: RateLimitCategory, subject: { userId?: string | null; ip?: string | null }) => Promise<RateOutcome | null>;
  /** API-key routes only (auth "apiKey"): the request's key (throws 401/429 when there is none that works). */
  resolveApiKey?: (req: Request, ip: string | null) => Promise<ApiKeyAuth>;
  /** A key's own requests-per-minute window (null: the key has no limit). */
  keyRate?: (key: ApiKeyPrincipal) => Promise<RateOutcome | null>;
  observe?: (observation: RouteObservation) => void;
}

/**
 * The one declarative wrapper for route handlers: auth mode, rate-limit category, feature flag,
 * zod query/body schemas, cache policy and OpenAPI metadata. It reads everything from the Request
 * (never next/headers), so tests call handlers directly.
 */
export type AuthMode = "session" | "none" | "optional" | "operator" | "apiKey";

export interface RouteSpec<Q extends ZodType | undefined, B extends ZodType | undefined, A extends AuthMode, R extends ZodType | undefined = ZodType | undefined> {
  auth: A;
  /**
   * The answers' dialect: ours (`{ error }`), or OpenAI's for the /v1 API (errors as
   * `{ error: { message, type, code, param } }`, lib/http/openai-error.ts).
   */
  dialect?: "openai";
  /** API-key routes: the kind of call, which a key limited to other kinds may not make (403). */
  keyKind?: KeyKind;
  rateLimit?: RateLimitCategory;
  /** A flag name, or a predicate on all flags; false answers 404 before anything else. */
  feature?: FlagName | ((f: FeatureFlags) => boolean);
  query?: Q;
  /** Body schema. Omit for handlers that read the body themselves (streams, multipart, webhooks). */
  body?: B;
  /**
   * How `body` is read: "json" (default), or "form": an HTML form post (urlencoded or multipart text
   * fields) or the same fields as JSON, so one schema serves a browser form and an API client.
   * ctx.bodyFormat says which arrived (a form post usually answers a 303 redirect).
   */
  bodyFormat?: "json" | "form";
  cache?: CachePolicy;
  /** OpenAPI metadata. */
  summary: string;
  description?: string;
  tags?: string[];
  /** Documented statuses besides 200 (the wrapper's own 400/401/404/429/500 are added automatically). */
  errors?: number[];
  /** The success body's schema: documents it, types the handler's return value and the dashboard's types. */
  response?: R;
  /** Content type(s) of the success body when not (only) JSON: text/event-stream, or JSON and a stream by request. */
  produces?: string | string[];
  /** Headers of the success response besides Cache-Control and X-RateLimit-* (name -> description). */
  responseHeaders?: Record<string, string>;
  /** The success status when it is a redirect (the route answers no 200). */
  successStatus?: 302 | 303;
  /** Body content type when not JSON (multipart/form-data, application/octet-stream, ...). */
  consumes?: string;
  /** Documents the request body in OpenAPI when `body` is a custom parser (z.unknown().transform(...)) or absent. */
  bodyDoc?: ZodType;
  /** Largest JSON body accepted (bytes); more answers 413 without reading the rest. Default 1 MiB. */
  maxBodyBytes?: number;
}

const UNSAFE_TEXT_MESSAGE = "must not contain NUL characters or unpaired surrogates";

export interface RouteContext<Q, B, A extends AuthMode> {
  req: Request;
  user: A extends "session" | "apiKey" ? SessionUser : SessionUser | null;
  /** Operator routes: who is acting (the audit trail's operator). */
  operator: A extends "operator" ? Operator : null;
  /** API-key routes: the key the request was made with (the user is its owner). */
  apiKey: A extends "apiKey" ? ApiKeyPrincipal : null;
  query: Q;
  body: B;
  params: Record<string, string>;
  requestId: string;
  log: Logger;
  ip: string | null;
  /** Set a response header on whatever the handler returns. */
  setHeader: (name: string, value: string) => void;
  /** How the body arrived ("form" only with bodyFormat "form" and a form content type). */
  bodyFormat: "json" | "form";
}

/** What a handler returns: a Response, or a value of its declared response schema (sent as JSON 200). */
export type HandlerResult<R> = Response | (R extends ZodType ? z.input<R> : object);

export type RouteHandler<Q, B, A extends AuthMode, R> = (ctx: RouteContext<Infer<Q>, Infer<B>, A>) => Promise<HandlerResult<R>> | HandlerResult<R>;

export type Infer<T> = T extends ZodType ? z.infer<T> : undefined;

export type NextRouteHandler = ((
  req: Request,
  ctx: { params: Promise<Record<string, string | string[]>> },
) => Promise<Response>) & {
  definition?: RouteSpec<ZodType | undefined, ZodType | undefined, AuthMode>;
  /** Operator routes: whether this request may learn the route exists (methods() hides its 405 otherwise). */
  visibleTo?: (req: Request) => Promise<boolean>;
};

function invalidInput(error: z.ZodError, where: "body" | "query"): AppError {
  const first = error.issues[0]?.path;
  return new AppError("validation_failed", describeIssues(error, where), { param: first?.length ? first.join(".") : undefined });
}

function describeIssues(error: z.ZodError, where: "body" | "query"): string {
  const parts = error.issues.slice(0, 5).map((issue) => {
    const field = issue.path.length ? issue.path.join(".") : where;
    return `${field}: ${issue.message}`;
  });
  return `Invalid ${where}: ${parts.join("; ")}`;
}

function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of url.searchParams) if (!(key in out)) out[key] = value;
  return out;
}

function featureEnabled(feature: RouteSpec<never, never, AuthMode>["feature"]): boolean {
  if (!feature) return true;
  const f = flags();
  return typeof feature === "function" ? feature(f) : Boolean(f[feature]);
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
  const handle = async (req: Request, nextCtx: Parameters<NextRouteHandler>[1], requestId: string): Promise<Response> => {
    const started = performance.now();
    tagActiveSpan({ "request.id": requestId });
    const url = new URL(req.url);
    const log = createLogger({ method: req.method, path: url.pathname });
    let params: Record<string, string> = {};
    const extraHeaders = new Headers();
    let rate: RateOutcome | null = null;
    let response: Response;
    try {
      if (!featureEnabled(spec.feature as never)) throw new AppError("feature_disabled", "Not found");
      // Operator routes answer everyone else exactly as a path no route serves: nothing reveals them.
      const operator = spec.auth === "operator" ? ((await runtime.resolveOperator?.(req)) ?? null) : null;
      if (spec.auth === "operator" && !operator) return await unknownApiPath(req, requestId);
      const ip = clientIp(req);
      // API-key routes know no session: the key alone says who is calling.
      const keyAuth = spec.auth === "apiKey" ? await runtime.resolveApiKey!(req, ip) : null;
      const apiKey = keyAuth?.key ?? null;
      const user: ResolvedUser | null = keyAuth
        ? { id: keyAuth.key.userId, email: null, locked: keyAuth.locked }
        : spec.auth === "none" || spec.auth === "operator"
          ? null
          : await runtime.resolveUser(req);
      if (spec.auth === "session" && !user) throw new AppError("unauthorized", "Authentication required");
      if (user?.locked && req.method !== "GET" && req.method !== "HEAD") {
        throw new AppError("forbidden", "This account is locked: it can be read but not changed or charged; contact support");
      }
      if (apiKey && spec.keyKind && apiKey.kinds.length > 0 && !apiKey.kinds.includes(spec.keyKind)) {
        throw new AppError("forbidden", `This API key may not make ${spec.keyKind} calls; it may make ${apiKey.kinds.join(", ")} calls`, { reason: "permission_denied" });
      }
      if (apiKey && runtime.keyRate) {
        const keyRate = await runtime.keyRate(apiKey);
        if (keyRate) {
          extraHeaders.set("x-ratelimit-limit-requests", String(keyRate.limit));
          extraHeaders.set("x-ratelimit-remaining-requests", String(keyRate.remaining));
          extraHeaders.set("x-ratelimit-reset-requests", `${Math.max(0, keyRate.reset - Math.floor(Date.now() / 1000))}s`);
          if (!keyRate.allowed) {
            const retryAfter = Math.max(1, keyRate.reset - Math.floor(Date.now() / 1000));
            throw new AppError("rate_limited", `This API key's limit of ${keyRate.limit} requests per minute is reached; retry after ${retryAfter} seconds`, {
              headers: { "Retry-After": String(retryAfter) },
              reason: "rate_limit_exceeded",
            });
          }
        }
      }

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

      const rawParams = nextCtx?.params ? await nextCtx.params : {};
      params = {};
      for (const [k, v] of Object.entries(rawParams)) params[k] = Array.isArray(v) ? v.join("/") : v;
      // A malformed id is an id that names nothing (the same answer as another user's).
      if (Object.values(params).some(isUnsafeId)) throw new AppError("not_found", "Not found");
      const rawQuery = queryObject(url);
      const unsafeQuery = findUnsafeText(rawQuery);
      if (unsafeQuery) throw new AppError("validation_failed", `Invalid query: ${unsafeQuery}: ${UNSAFE_TEXT_MESSAGE}`);

      let query: unknown = undefined;
      if (spec.query) {
        const parsed = spec.query.safeParse(rawQuery);
        if (!parsed.success) throw invalidInput(parsed.error, "query");
        query = parsed.data;
      }
      let body: unknown = undefined;
      let bodyFormat: "json" | "form" = "json";
      if (spec.body) {
        const limit = spec.maxBodyBytes ?? DEFAULT_MAX_JSON_BODY_BYTES;
        if (spec.bodyFormat === "form" && FORM_TYPES.test(req.headers.get("content-type") ?? "")) bodyFormat = "form";
        const raw = bodyFormat === "form" ? await readFormBody(req, limit) : await readJsonBody(req, limit);
        const unsafeBody = findUnsafeText(raw);
        if (unsafeBody) throw new AppError("validation_failed", `Invalid body: ${unsafeBody}: ${UNSAFE_TEXT_MESSAGE}`);
        const parsed = spec.body.safeParse(raw);
        if (!parsed.success) throw invalidInput(parsed.error, "body");
        body = parsed.data;
      }
      const result = await handler({
        req,
        user: user as never,
        operator: operator as never,
        apiKey: apiKey as never,
        query: query as never,
        body: body as never,
        params,
        requestId,
        log: apiKey ? log.child({ userId: apiKey.userId, keyId: apiKey.keyId }) : user ? log.child({ userId: user.id }) : operator ? log.child({ operator: operator.label }) : log,
        ip,
        setHeader: (name, value) => extraHeaders.set(name, value),
        bodyFormat,
      });
      response = result instanceof Response ? result : json(result);
      if (response.ok && !response.headers.has("cache-control")) {
        response.headers.set("cache-control", CACHE[spec.cache ?? "none"]);
      }
    } catch (error) {
      response = toErrorResponse(error, log, spec.dialect);
    }
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
      });
    } catch (error) {
      // Recording a metric never costs the client its answer.
      log.warn("request metric not recorded", { error: (error as Error).message });
    }
    return response;
  };
  wrapped.definition = spec as never;
  if (spec.auth === "operator") wrapped.visibleTo = async (req) => Boolean(await runtime.resolveOperator?.(req));
  return wrapped;
}

