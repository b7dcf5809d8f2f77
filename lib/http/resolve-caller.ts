import type { ZodType } from "zod";
import { AppError } from "@/lib/errors";
import { refuseCrossSiteWrite } from "./cross-site";
import type { ApiKeyPrincipal } from "@/lib/api-keys/authenticate-api-key";
import type { Operator } from "@/lib/auth/resolve-operator";
import type { AuthMode, ResolvedUser, RouteRuntime, RouteSpec } from "./route-types";

/** Who is calling, as a route's auth mode found out. */
export interface Caller {
  user: ResolvedUser | null;
  operator: Operator | null;
  apiKey: ApiKeyPrincipal | null;
}

/** An operator route asked by someone who is not an operator: answered exactly as a path no route serves. */
export const UNKNOWN_PATH = Symbol("unknown path");

interface ResolveInput {
  req: Request;
  ip: string | null;
  runtime: RouteRuntime;
  spec: RouteSpec<ZodType | undefined, ZodType | undefined, AuthMode>;
  setHeader: (name: string, value: string) => void;
}

type Resolver = (input: ResolveInput) => Promise<Caller | typeof UNKNOWN_PATH>;

const nobody: Caller = { user: null, operator: null, apiKey: null };
const isRead = (req: Request) => req.method === "GET" || req.method === "HEAD";

/** A signed-in user's write: from this site's pages only (CSRF), and never by a locked account. */
function checkUserWrite(req: Request, user: ResolvedUser): void {
  refuseCrossSiteWrite(req);
  if (user.locked && !isRead(req))
    throw new AppError("forbidden", "This account is locked: it can be read but not changed or charged; contact support");
}

/** The session's user, when there is one. */
async function sessionUser({ req, runtime }: ResolveInput): Promise<Caller> {
  const user = await runtime.resolveUser(req);
  if (user) checkUserWrite(req, user);
  return { ...nobody, user };
}

/** A key's own requests-per-minute window: its headers on every answer, 429 past it. */
async function checkKeyRate(key: ApiKeyPrincipal, runtime: RouteRuntime, setHeader: ResolveInput["setHeader"]): Promise<void> {
  const keyRate = await runtime.keyRate?.(key);
  if (!keyRate) return;
  const now = Math.floor(Date.now() / 1000);
  setHeader("x-ratelimit-limit-requests", String(keyRate.limit));
  setHeader("x-ratelimit-remaining-requests", String(keyRate.remaining));
  setHeader("x-ratelimit-reset-requests", `${Math.max(0, keyRate.reset - now)}s`);
  if (keyRate.allowed) return;
  const retryAfter = Math.max(1, keyRate.reset - now);
  throw new AppError(
    "rate_limited",
    `This API key's limit of ${keyRate.limit} requests per minute is reached; retry after ${retryAfter} seconds`,
    {
      headers: { "Retry-After": String(retryAfter) },
      reason: "rate_limit_exceeded",
    },
  );
}

/** One resolver per auth mode, chosen by the route's declaration. */
const RESOLVERS: Record<AuthMode, Resolver> = {
  none: async () => nobody,

  optional: sessionUser,

  session: async (input) => {
    const caller = await sessionUser(input);
    if (!caller.user) throw new AppError("unauthorized", "Authentication required");
    return caller;
  },

  // The operator API is invisible to everyone else: not even a 401 or a cross-site refusal tells it exists.
  operator: async ({ req, runtime }) => {
    const operator = (await runtime.resolveOperator?.(req)) ?? null;
    if (!operator) return UNKNOWN_PATH;
    refuseCrossSiteWrite(req);
    return { ...nobody, operator };
  },

  // API-key routes know no session: the key alone says who is calling. A locked account's keys are
  // suspended, reads included (the key is not revoked: an operator's unlock gives it back).
  apiKey: async ({ req, ip, runtime, spec, setHeader }) => {
    const keyAuth = await runtime.resolveApiKey!(req, ip);
    const key = keyAuth.key;
    refuseCrossSiteWrite(req);
    if (keyAuth.locked)
      throw new AppError("forbidden", "This account is locked: its API keys are suspended; contact support", { reason: "account_locked" });
    if (spec.keyKind && key.kinds.length > 0 && !key.kinds.includes(spec.keyKind)) {
      throw new AppError("forbidden", `This API key may not make ${spec.keyKind} calls; it may make ${key.kinds.join(", ")} calls`, {
        reason: "permission_denied",
      });
    }
    await checkKeyRate(key, runtime, setHeader);
    return { user: { id: key.userId, email: null, locked: false }, operator: null, apiKey: key };
  },
};

/** The caller of a request under the route's auth mode (or UNKNOWN_PATH for an operator route asked by anyone else). */
export function resolveCaller(input: ResolveInput): Promise<Caller | typeof UNKNOWN_PATH> {
  return RESOLVERS[input.spec.auth](input);
}
