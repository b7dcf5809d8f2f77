import { after } from "next/server";
import type { ZodType } from "zod";
import type { FeatureFlags } from "@/lib/config/flags";
import type { Logger } from "@/lib/log";
import type { ChargeSlot } from "@/lib/db/ai-slots";
import { getSessionUser } from "@/lib/auth/session";
import { simulatorEnabled } from "@/lib/billing/payment-provider/payment-provider";
import { drainSettlements, pendingSettlements } from "@/lib/credits";
import { checkRateLimit } from "@/lib/ratelimit";
import { env } from "@/lib/config/env";
import { log } from "@/lib/log";
import { metrics } from "@/lib/metrics";
import { resolveOperator } from "@/lib/auth/resolve-operator";
import { watchCharges } from "@/lib/spend-alerts/watch-charges";
import { checkKeyRate, resolveKeyRequest } from "@/lib/api-keys/resolve-key-request";
import { accountState } from "@/lib/users/account-state";
import { acquireAiSlot } from "@/lib/ratelimit/ai-slot/acquire-ai-slot";
import { countInvalidAiRequest, refuseIfTooManyInvalid } from "@/lib/ratelimit/ai-slot/invalid-ai-requests";
import { ChargedAnswer, chargedResponse, V1_ERRORS, V1_HEADERS } from "@/lib/openai-api/route-spec";
import { DEFAULT_MAX_JSON_BODY_BYTES, readBodyBytes } from "./read-body";
import { SSE_FRAMING } from "./sse";
import { resolveActingAccount } from "./active-account";
import { PEER_TOKEN_VARIABLE } from "./client-ip";
import {
  createRoute,
  featureOn,
  type AuthMode,
  type HandlerResult,
  type NextRouteHandler,
  type RouteContext,
  type RouteHandler,
  type RouteObservation,
  type RouteSpec,
} from "./handler";

export { toErrorResponse, type NextRouteHandler, type RouteContext } from "./handler";
export { methods } from "./methods";

/**
 * The session's user, if they still exist: a deleted user's valid JWT is no session (401 everywhere);
 * a locked account's session may read but not write (the wrapper answers 403).
 */
async function resolveUser(req: Request) {
  const user = await getSessionUser(req);
  if (!user) return null;
  const state = await accountState(user.id, user);
  return state ? { ...user, locked: state === "locked" } : null;
}

function observe(o: RouteObservation): void {
  const m = metrics();
  if (o.kind === "rate_limited") {
    m.rateLimitRejections.inc({ category: o.category });
    return;
  }
  m.httpRequests.inc(o.labels);
  m.httpDuration.observe(o.labels, o.seconds);
  // One access line per request (the request id comes with the log context), LOG_ACCESS_SAMPLE of them.
  const sample = env().LOG_ACCESS_SAMPLE;
  if (sample >= 1 || Math.random() < sample) {
    log.info("request", {
      method: o.labels.method,
      route: o.labels.route,
      status: Number(o.labels.status),
      ms: Math.round(o.seconds * 10_000) / 10,
      ...(o.userId ? { userId: o.userId } : {}),
    });
  }
}

/**
 * Settlements a handler left to be written after its answer (lib/credits settleInBackground): Next's
 * after() keeps the request (a serverless function included) alive until they are written. The
 * standalone server (scripts/preflight.ts: it sets the peer token) lives on and writes them before it
 * exits, so it asks nothing of after() (the gateway lane has no request scope for it: a thrown error
 * per call). Without a request scope (tests calling handlers directly) they complete on their own.
 */
function afterResponse(): void {
  if (pendingSettlements() === 0 || process.env[PEER_TOKEN_VARIABLE]) return;
  try {
    after(drainSettlements);
  } catch {
    // no request scope
  }
}

const aiGuard = {
  acquire: (userId: string) => acquireAiSlot(userId),
  refuseIfTooManyInvalid: (userId: string) => refuseIfTooManyInvalid(userId),
  countInvalid: (userId: string) => countInvalidAiRequest(userId),
};

// Spend alerts watch the charges every route makes (lib/spend-alerts: an observer of lib/credits).
watchCharges();

const nodeRuntime = {
  resolveUser,
  resolveOperator,
  resolveApiKey: resolveKeyRequest,
  keyRate: checkKeyRate,
  rateLimit: checkRateLimit,
  observe,
  afterResponse,
  aiGuard,
  resolveAccount: resolveActingAccount,
};

/** Route wrapper for Node route handlers: session, rate limits, schemas, flags, cache (see handler.ts). */
export function route<
  Q extends ZodType | undefined = undefined,
  B extends ZodType | undefined = undefined,
  A extends AuthMode = AuthMode,
  R extends ZodType | undefined = undefined,
>(spec: RouteSpec<Q, B, A, R>, handler: RouteHandler<Q, B, A, R>): NextRouteHandler {
  return createRoute(nodeRuntime, spec, handler);
}

/** A route's declaration less what its preset fixes. */
type PresetSpec<
  Q extends ZodType | undefined,
  B extends ZodType | undefined,
  A extends AuthMode,
  R extends ZodType | undefined,
  Fixed extends keyof RouteSpec<Q, B, A, R>,
> = Omit<RouteSpec<Q, B, A, R>, "auth" | Fixed> & { tags?: string[] };

/** The operator API's routes (docs/ADMIN.md): operator auth, its own rate-limit category, the admin tag. */
export function operatorRoute<
  Q extends ZodType | undefined = undefined,
  B extends ZodType | undefined = undefined,
  R extends ZodType | undefined = undefined,
>(spec: PresetSpec<Q, B, "operator", R, "rateLimit">, handler: RouteHandler<Q, B, "operator", R>): NextRouteHandler {
  return route<Q, B, "operator", R>({ auth: "operator", rateLimit: "admin", tags: ["admin"], ...spec }, handler);
}

/**
 * The inbound webhooks: no session (the signature is the authentication, verified on the raw body
 * before anything is parsed), the webhooks rate limit per client address, a JSON body of at most
 * 1 MiB (read bounded: a larger one is refused with 413 before it is kept or verified; providers'
 * events are a few kB), and the statuses every delivery may get (400, 401, 413). The handler
 * receives the raw body and the request.
 */
export function webhookRoute<R extends ZodType | undefined = undefined>(
  spec: PresetSpec<undefined, undefined, "none", R, "rateLimit" | "consumes" | "body">,
  handler: (raw: string, ctx: RouteContext<undefined, undefined, "none">) => Promise<HandlerResult<R>>,
): NextRouteHandler {
  return route<undefined, undefined, "none", R>(
    {
      auth: "none",
      rateLimit: "webhooks",
      tags: ["webhooks"],
      consumes: "application/json",
      ...spec,
      errors: [...new Set([400, 401, 413, ...(spec.errors ?? [])])].sort(),
    },
    async (ctx) => {
      const bytes = await readBodyBytes(ctx.req, DEFAULT_MAX_JSON_BODY_BYTES);
      return handler(bytes ? new TextDecoder().decode(bytes) : "", ctx);
    },
  );
}

/**
 * The local checkout simulator's form posts (it exists only while it stands in for Lemon Squeezy):
 * no session (a signed id or token authorizes), a form or the same fields as JSON, 303 answers to
 * form posts (declared by `formPost`), the simulator tag.
 */
export function simulatorRoute<B extends ZodType | undefined = undefined, R extends ZodType | undefined = undefined>(
  spec: PresetSpec<undefined, B, "none", R, "feature" | "bodyFormat" | "consumes">,
  handler: RouteHandler<undefined, B, "none", R>,
): NextRouteHandler {
  return route<undefined, B, "none", R>(
    {
      auth: "none",
      feature: () => simulatorEnabled(),
      bodyFormat: "form",
      consumes: "application/x-www-form-urlencoded",
      tags: ["simulator"],
      ...spec,
      // A form post answers 303 to the next page; JSON answers 200.
      errors: [...new Set([303, 400, ...(spec.errors ?? [])])].sort(),
    },
    handler,
  );
}

/** A signed-in user's payment actions (checkouts, plan changes, cancel, the portal): the payments rate limit and tag. */
export function paymentRoute<
  Q extends ZodType | undefined = undefined,
  B extends ZodType | undefined = undefined,
  R extends ZodType | undefined = undefined,
>(spec: PresetSpec<Q, B, "session", R, "rateLimit">, handler: RouteHandler<Q, B, "session", R>): NextRouteHandler {
  return route<Q, B, "session", R>({ auth: "session", rateLimit: "payments", tags: ["payments"], account: "admin", ...spec }, handler);
}

/** A signed-in user's charged AI calls: the ai tag, and what every such call may answer (402, 429, 503) besides its own statuses. */
export function aiRoute<
  Q extends ZodType | undefined = undefined,
  B extends ZodType | undefined = undefined,
  R extends ZodType | undefined = undefined,
>(spec: PresetSpec<Q, B, "session", R, never>, handler: RouteHandler<Q, B, "session", R>): NextRouteHandler {
  return route<Q, B, "session", R>(
    {
      auth: "session",
      tags: ["ai"],
      concurrency: "ai",
      account: "member",
      ...spec,
      errors: [...new Set([402, 429, 503, ...(spec.errors ?? [])])].sort(),
    },
    handler,
  );
}

/**
 * The OpenAI-compatible API (/v1): API-key auth behind the API_KEYS_ENABLED flag (and the route's
 * own feature, when it has one), OpenAI's error shape, its statuses and credit headers. A charged
 * call (the default) holds an AI slot; `listing: true` declares a free read (the model list): no
 * slot, the v1 rate-limit category, no credit headers.
 */
export function v1Route<
  Q extends ZodType | undefined = undefined,
  B extends ZodType | undefined = undefined,
  R extends ZodType | undefined = undefined,
>(
  spec: PresetSpec<Q, B, "apiKey", R, "dialect"> & { listing?: boolean },
  handler: (ctx: Parameters<RouteHandler<Q, B, "apiKey", R>>[0]) => Promise<HandlerResult<R> | ChargedAnswer<unknown>> | HandlerResult<R>,
): NextRouteHandler {
  const { listing, feature: own, ...rest } = spec;
  const feature = Object.assign((f: FeatureFlags) => f.apiKeys && featureOn(own, f), {
    flags: ["apiKeys", ...(typeof own === "string" ? [own] : [])],
  });
  const defaults = listing
    ? { rateLimit: "v1" as const, concurrency: "none" as const, responseHeaders: {} }
    : { responseHeaders: V1_HEADERS, concurrency: "ai" as const };
  return route<Q, B, "apiKey", R>(
    { auth: "apiKey", dialect: "openai", tags: ["v1"], errors: V1_ERRORS, ...defaults, ...rest, feature },
    async (ctx) => {
      const result = await handler(ctx);
      return result instanceof ChargedAnswer ? chargedResponse(result) : result;
    },
  );
}

/** What a streamed AI call takes from its request: the user, the account charged, the body, the client's signal, our SSE framing, the request's log and its AI slot to take with the charge. */
export function streamedAiInput<B>(ctx: {
  user: { id: string };
  account: { id: string; memberId: string | null };
  body: B;
  req: Request;
  log: Logger;
  aiSlot: ChargeSlot | null;
}) {
  return {
    userId: ctx.user.id,
    account: ctx.account,
    body: ctx.body,
    signal: ctx.req.signal,
    framing: SSE_FRAMING,
    log: ctx.log,
    slot: ctx.aiSlot,
  };
}
