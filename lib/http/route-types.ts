import type { z, ZodType } from "zod";
import type { ErrorCode } from "@/lib/errors";
import type { ApiKeyPrincipal } from "@/lib/api-keys/authenticate-api-key";
import type { ApiKeyAuth } from "@/lib/api-keys/resolve-key-request";
import type { KeyKind } from "@/lib/api-keys/schemas";
import type { Operator } from "@/lib/auth/resolve-operator";
import type { SessionUser } from "@/lib/auth/session";
import type { FeatureFlags, FlagName } from "@/lib/config/flags";
import type { Logger } from "@/lib/log";
import type { ActingAccount, RequiredRole } from "@/lib/organisations/roles";
import type { RateLimitCategory } from "@/lib/ratelimit/categories";
import type { ChargeSlot } from "@/lib/db/ai-slots";
import type { CachePolicy } from "./cache";

/** The route wrapper's declarations (lib/http/handler.ts): what a route declares, gets and returns. */
export interface RateOutcome {
  allowed: boolean;
  limit: number;
  remaining: number;
  reset: number;
}

/** What the wrapper reports for metrics (Node routes record them; edge routes have no metrics). */
export type RouteObservation =
  | { kind: "request"; labels: { route: string; method: string; status: string }; seconds: number; userId: string | null }
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
  /** AI routes (spec.concurrency "ai"): the per-user cap on requests in progress and on invalid requests. */
  aiGuard?: AiGuard;
  /** Routes that declare `account`: the account a signed-in person acts for (lib/http/active-account.ts). */
  resolveAccount?: (req: Request, userId: string, needed: RequiredRole) => Promise<ActingAccount>;
}

/** lib/ratelimit/ai-slot, as the wrapper uses it. */
export interface AiGuard {
  acquire(userId: string): Promise<{ release(): void; charge: ChargeSlot | null }>;
  refuseIfTooManyInvalid(userId: string): void;
  countInvalid(userId: string): Promise<void>;
}

/**
 * The one declarative wrapper for route handlers: auth mode, rate-limit category, feature flag,
 * zod query/body schemas, cache policy and OpenAPI metadata. It reads everything from the Request
 * (never next/headers), so tests call handlers directly.
 */
export type AuthMode = "session" | "none" | "optional" | "operator" | "apiKey";

export interface RouteSpec<
  Q extends ZodType | undefined,
  B extends ZodType | undefined,
  A extends AuthMode,
  R extends ZodType | undefined = ZodType | undefined,
> {
  auth: A;
  /**
   * The answers' dialect: ours (`{ error }`), or OpenAI's for the /v1 API (errors as
   * `{ error: { message, type, code, param } }`, lib/http/openai-error.ts).
   */
  dialect?: "openai";
  /** API-key routes: the kind of call, which a key limited to other kinds may not make (403). */
  keyKind?: KeyKind;
  /**
   * The request limit's category (lib/ratelimit/categories.ts: fixed hourly windows per user and per
   * IP); null or absent: no request limit. docs/API-NOTES.md's table is printed from this.
   */
  rateLimit?: RateLimitCategory | null;
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
  /**
   * With bodyFormat "form": what a form post answers (JSON requests get the handler's value or the
   * error as usual). Both are 303 redirects: on success to `next(result, body)`, on an error of ours
   * (not "internal", nor a code in `passThrough`) back to `back(body)` with `error=<message>` added.
   */
  formPost?: {
    next: (result: R extends ZodType ? z.input<R> : never, body: B extends ZodType ? z.infer<B> : never) => string;
    back: (body: B extends ZodType ? z.infer<B> : never) => string;
    passThrough?: ErrorCode[];
  };
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
  /**
   * Largest text a JSON body may carry besides base64 images (bytes), when maxBodyBytes leaves room
   * for images: a larger body without the images to fill it answers 413 before it is parsed.
   */
  maxTextBytes?: () => number;
  /**
   * "ai": a charged AI call. The user holds one of their AI_MAX_CONCURRENT_PER_USER slots from before
   * the body is read until the answer is complete (a stream: its end), and their invalid requests
   * (400, 413, 415) are counted, past a limit refused (lib/ratelimit/ai-slot). "none": not. The part of
   * the slot still to take across instances is the handler's ctx.aiSlot, which it passes to its charge.
   */
  concurrency?: "ai" | "none";
  /**
   * The route acts for an account's wallet (docs/API-NOTES.md "Organisations"): a session's active
   * account (the person's own, or an organisation they belong to; ctx.account), or an API key's
   * account. The role an organisation's member needs: "member" (any), "admin" (owner and admins:
   * 403 for a member), "owner". Routes without it act for the person alone.
   */
  account?: RequiredRole;
}

export interface RouteContext<Q, B, A extends AuthMode> {
  req: Request;
  user: A extends "session" | "apiKey" ? SessionUser : SessionUser | null;
  /** Operator routes: who is acting (the audit trail's operator). */
  operator: A extends "operator" ? Operator : null;
  /** API-key routes: the key the request was made with (the user is its owner). */
  apiKey: A extends "apiKey" ? ApiKeyPrincipal : null;
  /**
   * The account the request acts for: with `account` declared, the session's active account or the
   * key's; else the person's own. Null without a user.
   */
  account: A extends "session" | "apiKey" ? ActingAccount : ActingAccount | null;
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
  /**
   * AI routes (concurrency "ai"): the request's AI slot still to take across instances, which the
   * handler passes to its charge (openCharge({ slot })); null when there is none to take.
   */
  aiSlot: ChargeSlot | null;
}

/** What a handler returns: a Response, or a value of its declared response schema (sent as JSON 200). */
export type HandlerResult<R> = Response | (R extends ZodType ? z.input<R> : object);

export type RouteHandler<Q, B, A extends AuthMode, R> = (
  ctx: RouteContext<Infer<Q>, Infer<B>, A>,
) => Promise<HandlerResult<R>> | HandlerResult<R>;

export type Infer<T> = T extends ZodType ? z.infer<T> : undefined;

export type NextRouteHandler = ((req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>) & {
  definition?: RouteSpec<ZodType | undefined, ZodType | undefined, AuthMode>;
  /** Operator routes: whether this request may learn the route exists (methods() hides its 405 otherwise). */
  visibleTo?: (req: Request) => Promise<boolean>;
};
