import { after } from "next/server";
import type { ZodType } from "zod";
import { getSessionUser } from "@/lib/auth/session";
import { drainSettlements, pendingSettlements } from "@/lib/credits";
import { checkRateLimit } from "@/lib/ratelimit";
import { metrics } from "@/lib/metrics";
import { resolveOperator } from "@/lib/auth/resolve-operator";
import { checkKeyRate, resolveKeyRequest } from "@/lib/api-keys/resolve-key-request";
import { accountState } from "@/lib/users/account-state";
import { createRoute, type AuthMode, type NextRouteHandler, type RouteHandler, type RouteObservation, type RouteSpec } from "./handler";

export { toErrorResponse, type NextRouteHandler, type RouteContext } from "./handler";
export { methods } from "./methods";

/**
 * The session's user, if they still exist: a deleted user's valid JWT is no session (401 everywhere);
 * a locked account's session may read but not write (the wrapper answers 403).
 */
async function resolveUser(req: Request) {
  const user = await getSessionUser(req);
  if (!user) return null;
  const state = await accountState(user.id, user.signedInAt);
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
}

/**
 * Settlements a handler left to be written after its answer (lib/credits settleInBackground): Next's
 * after() keeps the request (a serverless function included) alive until they are written. Without a
 * request scope (tests calling handlers directly) they complete on their own.
 */
function afterResponse(): void {
  if (pendingSettlements() === 0) return;
  try {
    after(drainSettlements);
  } catch {
    // no request scope
  }
}

const nodeRuntime = { resolveUser, resolveOperator, resolveApiKey: resolveKeyRequest, keyRate: checkKeyRate, rateLimit: checkRateLimit, observe, afterResponse };

/** Route wrapper for Node route handlers: session, rate limits, schemas, flags, cache (see handler.ts). */
export function route<
  Q extends ZodType | undefined = undefined,
  B extends ZodType | undefined = undefined,
  A extends AuthMode = AuthMode,
  R extends ZodType | undefined = undefined,
>(spec: RouteSpec<Q, B, A, R>, handler: RouteHandler<Q, B, A, R>): NextRouteHandler {
  return createRoute(nodeRuntime, spec, handler);
}
