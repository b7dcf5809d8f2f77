import { z, type ZodType } from "zod";
import type { Operator } from "@/lib/admin/resolve-operator";
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
import { errorResponse, json } from "./respond";
import { unknownApiPath } from "./unknown-path";

export { requestIdOf } from "./request-id";
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
  observe?: (observation: RouteObservation) => void;
}

/**
 * The one declarative wrapper for route handlers: auth mode, rate-limit category, feature flag,
 * zod query/body schemas, cache policy and OpenAPI metadata. It reads everything from the Request
 * (never next/headers), so tests call handlers directly.
 */
export type AuthMode = "session" | "none" | "optional" | "operator";

export interface RouteSpec<Q extends ZodType | undefined, B extends ZodType | undefined, A extends AuthMode, R extends ZodType | undefined = ZodType | undefined> {
  auth: A;
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

export const DEFAULT_MAX_JSON_BODY_BYTES = 1024 * 1024;
const UNSAFE_TEXT_MESSAGE = "must not contain NUL characters or unpaired surrogates";
const UNMATCHED_ROUTE = "(unmatched)";

export interface RouteContext<Q, B, A extends AuthMode> {
  req: Request;
  user: A extends "session" ? SessionUser : SessionUser | null;
  /** Operator routes: who is acting (the audit trail's operator). */
  operator: A extends "operator" ? Operator : null;
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

/** Reads a body of at most `limit` bytes, refusing larger ones by Content-Length or while reading. */
async function readBodyBytes(req: Request, limit: number): Promise<Uint8Array<ArrayBuffer> | null> {
  const tooLarge = () => new AppError("payload_too_large", `Request body too large: the limit is ${limit} bytes`);
  const declared = Number(req.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  if (!req.body) return null;
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

async function readJsonBody(req: Request, limit: number): Promise<unknown> {
  const bytes = await readBodyBytes(req, limit);
  const text = bytes ? new TextDecoder().decode(bytes) : "";
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("validation_failed", "Invalid body: not valid JSON");
  }
}

const FORM_TYPES = /^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i;

/** A form post's text fields (a field sent twice keeps the first; file fields are not text and are dropped). */
async function readFormBody(req: Request, limit: number): Promise<Record<string, string>> {
  const bytes = await readBodyBytes(req, limit);
  const type = req.headers.get("content-type") ?? "";
  let data: FormData;
  try {
    data = await new Response(bytes ?? new Uint8Array(), { headers: { "content-type": type } }).formData();
  } catch {
    throw new AppError("validation_failed", "Invalid body: the form could not be read");
  }
  const fields: Record<string, string> = {};
  for (const [key, value] of data.entries()) if (typeof value === "string" && !(key in fields)) fields[key] = value;
  return fields;
}

function featureEnabled(feature: RouteSpec<never, never, AuthMode>["feature"]): boolean {
  if (!feature) return true;
  const f = flags();
  return typeof feature === "function" ? feature(f) : Boolean(f[feature]);
}

/**
 * The route's pattern for metric labels: the path with each parameter's value put back as `{name}`
 * (/api/files/{id}), so labels never carry ids.
 */
export function routePattern(pathname: string, params: Record<string, string>): string {
  const names = Object.entries(params);
  if (names.length === 0) return pathname;
  const segments = pathname.split("/");
  for (const [name, value] of names) {
    const parts = value.split("/");
    const encoded = parts.map(safeEncode);
    let found = false;
    for (let i = 0; i + parts.length <= segments.length && !found; i++) {
      const slice = segments.slice(i, i + parts.length);
      if (slice.every((seg, j) => seg === parts[j] || seg === encoded[j] || safeDecode(seg) === parts[j])) {
        segments.splice(i, parts.length, `{${name}}`);
        found = true;
      }
    }
    // Never fall back to the raw path: it would put the id into a label.
    if (!found) return UNMATCHED_ROUTE;
  }
  return segments.join("/");
}

function safeEncode(part: string): string {
  try {
    return encodeURIComponent(part);
  } catch {
    return part; // an unpaired surrogate has no encoding
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}


export function toErrorResponse(error: unknown, log: Logger): Response {
  if (isAppError(error)) {
    const status = STATUS_BY_CODE[error.code];
    if (status >= 500) log.error("request failed", { code: error.code, error });
    return errorResponse(status, exposesMessage(error.code) ? error.message : "Internal server error", error.headers);
  }
  log.error("unhandled error", { error });
  return errorResponse(500, "Internal server error");
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
      const user = spec.auth === "none" || spec.auth === "operator" ? null : await runtime.resolveUser(req);
      if (spec.auth === "session" && !user) throw new AppError("unauthorized", "Authentication required");
      if (user?.locked && req.method !== "GET" && req.method !== "HEAD") {
        throw new AppError("forbidden", "This account is locked: it can be read but not changed or charged; contact support");
      }

      const ip = clientIp(req);
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
        if (!parsed.success) throw new AppError("validation_failed", describeIssues(parsed.error, "query"));
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
        if (!parsed.success) throw new AppError("validation_failed", describeIssues(parsed.error, "body"));
        body = parsed.data;
      }
      const result = await handler({
        req,
        user: user as never,
        operator: operator as never,
        query: query as never,
        body: body as never,
        params,
        requestId,
        log: user ? log.child({ userId: user.id }) : operator ? log.child({ operator: operator.label }) : log,
        ip,
        setHeader: (name, value) => extraHeaders.set(name, value),
        bodyFormat,
      });
      response = result instanceof Response ? result : json(result);
      if (response.ok && !response.headers.has("cache-control")) {
        response.headers.set("cache-control", CACHE[spec.cache ?? "none"]);
      }
    } catch (error) {
      response = toErrorResponse(error, log);
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

const ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof ALL_METHODS)[number];

/**
 * Completes a route file's exports: methods it does not implement answer 405 with `{ error }` and an
 * Allow header (Next's own 405 has no body). On operator routes only operators learn that much;
 * everyone else gets the answer of a path no route serves.
 *   export const { GET, POST, PUT, PATCH, DELETE } = methods({ GET: route(...) });
 */
export function methods(implemented: Partial<Record<Method, NextRouteHandler>>): Record<Method, NextRouteHandler> {
  const allow = ALL_METHODS.filter((m) => implemented[m]).join(", ");
  const guarded = Object.values(implemented).find((h) => h?.visibleTo);
  const notAllowed: NextRouteHandler = async (req) => {
    if (guarded?.visibleTo && !(await guarded.visibleTo(req))) return unknownApiPath(req);
    return errorResponse(405, `Method ${req.method} not allowed; use ${allow}`, {
      allow,
      "cache-control": "no-store",
      "x-request-id": requestIdOf(req),
    });
  };
  const out = {} as Record<Method, NextRouteHandler>;
  for (const m of ALL_METHODS) out[m] = implemented[m] ?? notAllowed;
  return out;
}
