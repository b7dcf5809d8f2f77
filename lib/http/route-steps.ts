import type { ZodType } from "zod";
import { flags, type FeatureFlags } from "@/lib/config/flags";
import { countsFailedVerificationOnly } from "@/lib/ratelimit/categories";
import type { ChargeSlot } from "@/lib/db/ai-slots";
import { AppError, isVerificationFailure } from "@/lib/errors";
import type { Logger } from "@/lib/log";
import { personalAccount, type ActingAccount } from "@/lib/organisations/roles";
import type { ApiKeyPrincipal } from "@/lib/api-keys/authenticate-api-key";
import { clientIp } from "./client-ip";
import { parseInput } from "./parse-input";
import { resolveCaller, UNKNOWN_PATH, type Caller } from "./resolve-caller";
import type { AuthMode, RateOutcome, RouteRuntime, RouteSpec } from "./route-types";
import { isUnsafeId } from "./unsafe-text";
import { unknownApiPath } from "./unknown-path";

/**
 * The steps a request goes through before its handler runs (lib/http/handler.ts runs them in order),
 * each one small, named for what it decides: a route's path is the list routeSteps() makes from its
 * declaration, which a reader sees whole (and GET /api/... answers in that order: 404 for a feature
 * that is off before 401, 401 before 429, 429 before a body is read).
 *
 *   feature    the route's feature flag: off answers 404 before anything else
 *   caller     who calls, by the route's auth mode (session, API key, operator, none)
 *   rateLimit  the route's request limit (its category), per user and per address
 *   safeIds    a malformed id in the path names nothing: 404, as another account's
 *   aiSlot     an AI call's place under the user's cap on requests in progress (429 at the cap)
 *   account    the account a request acts for (a person's own, or an organisation they belong to)
 *   input      the query and body, read within their bounds and checked by their schemas (400)
 */
export type AnyRouteSpec = RouteSpec<ZodType | undefined, ZodType | undefined, AuthMode>;

/** What a request has gathered so far; each step adds its part. */
export interface RouteState {
  req: Request;
  url: URL;
  requestId: string;
  log: Logger;
  ip: string | null;
  params: Record<string, string>;
  caller: Caller;
  rate: RateOutcome | null;
  slot: { release(): void; charge: ChargeSlot | null } | null;
  /** The user whose AI request this is: its invalid requests are counted (400, 413, 415). */
  aiUser: string | null;
  account: ActingAccount | null;
  query: unknown;
  body: unknown;
  bodyFormat: "json" | "form";
  /** A form post's body, for its 303 answers. */
  form: { body: unknown } | null;
  setHeader: (name: string, value: string) => void;
}

/** A step: adds to the state, throws an AppError to answer, or returns a Response that ends the request as it is. */
export type RouteStep = (state: RouteState, spec: AnyRouteSpec, runtime: RouteRuntime) => Promise<Response | void> | Response | void;

/** Whether a route's declared feature is on under these flags (no feature: always). */
export function featureOn(feature: AnyRouteSpec["feature"], f: FeatureFlags): boolean {
  if (!feature) return true;
  return typeof feature === "function" ? feature(f) : Boolean(f[feature]);
}

const nobody: Caller = { user: null, operator: null, apiKey: null };

/** The account an API key acts for: its own (an organisation's key, as the member who made it). */
function keyAccount(apiKey: ApiKeyPrincipal): ActingAccount {
  return apiKey.memberId
    ? { id: apiKey.userId, kind: "organisation", role: "member", memberId: apiKey.memberId }
    : personalAccount(apiKey.userId);
}

export const STEPS = {
  feature: (_s, spec) => {
    if (!featureOn(spec.feature, flags())) throw new AppError("feature_disabled", "Not found");
  },

  caller: async (s, spec, runtime) => {
    s.ip = clientIp(s.req);
    // One resolver per auth mode (resolve-caller.ts): who calls, and whether they may.
    const caller = await resolveCaller({ req: s.req, ip: s.ip, runtime, spec, setHeader: s.setHeader });
    if (caller === UNKNOWN_PATH) return unknownApiPath(s.req, s.requestId);
    s.caller = caller;
    const { user, operator, apiKey } = caller;
    if (apiKey) s.log = s.log.child({ userId: apiKey.userId, keyId: apiKey.keyId });
    else if (user) s.log = s.log.child({ userId: user.id });
    else if (operator) s.log = s.log.child({ operator: operator.label });
  },

  rateLimit: async (s, spec, runtime) => {
    if (!spec.rateLimit) return;
    const { operator, user } = s.caller;
    s.rate = await runtime.rateLimit(spec.rateLimit, { userId: operator ? (operator.id ?? "admin-api-token") : user?.id, ip: s.ip });
    const refusal = rateRefusal(s, spec, runtime);
    if (refusal) throw refusal;
  },

  safeIds: (s) => {
    if (Object.values(s.params).some(isUnsafeId)) throw new AppError("not_found", "Not found");
  },

  // Held from before the body is read to the answer's end (a stream: its last byte). On PostgreSQL the
  // count across instances is taken with the call's charge: the handler gets it as ctx.aiSlot.
  aiSlot: async (s, _spec, runtime) => {
    const user = s.caller.user;
    if (!user || !runtime.aiGuard) return;
    s.aiUser = user.id;
    runtime.aiGuard.refuseIfTooManyInvalid(user.id);
    s.slot = await runtime.aiGuard.acquire(user.id);
  },

  account: async (s, spec, runtime) => {
    const { user, apiKey } = s.caller;
    if (!user) return;
    if (apiKey) s.account = keyAccount(apiKey);
    else if (spec.account && runtime.resolveAccount) s.account = await runtime.resolveAccount(s.req, user.id, spec.account);
    else s.account = personalAccount(user.id);
  },

  input: async (s, spec) => {
    const { query, body, bodyFormat } = await parseInput(spec, s.req, s.url);
    s.query = query;
    s.body = body;
    s.bodyFormat = bodyFormat;
    if (spec.formPost && bodyFormat === "form") s.form = { body };
  },
} satisfies Record<string, RouteStep>;

export type StepName = keyof typeof STEPS;

/** The 429 for a request over its category's limit (s.rate counted), or null. */
export function rateRefusal(s: RouteState, spec: AnyRouteSpec, runtime: RouteRuntime): AppError | null {
  if (!s.rate || s.rate.allowed || !spec.rateLimit) return null;
  runtime.observe?.({ kind: "rate_limited", category: spec.rateLimit });
  const retryAfter = Math.max(1, s.rate.reset - Math.floor(Date.now() / 1000));
  return new AppError("rate_limited", `Rate limit exceeded; retry after ${retryAfter} seconds`, {
    headers: { "Retry-After": String(retryAfter) },
  });
}

/**
 * A category that counts only failed verifications (the webhooks'): a refusal for a signature that
 * did not verify is counted now, and answers 429 instead once the address is over the limit. A
 * verified delivery never reaches this, so it is never counted nor refused.
 */
export async function countFailedVerification(error: unknown, s: RouteState, spec: AnyRouteSpec, runtime: RouteRuntime): Promise<unknown> {
  if (!spec.rateLimit || !countsFailedVerificationOnly(spec.rateLimit) || !isVerificationFailure(error)) return error;
  s.rate = await runtime.rateLimit(spec.rateLimit, { ip: s.ip });
  return rateRefusal(s, spec, runtime) ?? error;
}

/**
 * A route's steps, from its declaration: every route checks its feature and its caller, reads its
 * input and keeps ids sane; a declared `rateLimit` counts the request, `concurrency: "ai"` takes an AI
 * slot. Presets (lib/http/route.ts) are declarations, so each is a list of these steps.
 */
export function routeSteps(spec: AnyRouteSpec): StepName[] {
  return [
    "feature",
    "caller",
    // A category that counts only failed verifications is counted when one fails (handler.ts), not here.
    ...(spec.rateLimit && !countsFailedVerificationOnly(spec.rateLimit) ? (["rateLimit"] as const) : []),
    "safeIds",
    ...(spec.concurrency === "ai" ? (["aiSlot"] as const) : []),
    "account",
    "input",
  ];
}

/** The state a request starts with. */
export function initialState(
  req: Request,
  url: URL,
  requestId: string,
  log: Logger,
  params: Record<string, string>,
  setHeader: RouteState["setHeader"],
): RouteState {
  return {
    req,
    url,
    requestId,
    log,
    ip: null,
    params,
    caller: nobody,
    rate: null,
    slot: null,
    aiUser: null,
    account: null,
    query: undefined,
    body: undefined,
    bodyFormat: "json",
    form: null,
    setHeader,
  };
}
