import type { ZodType } from "zod";
import { route } from "./route";
import type { NextRouteHandler, RouteHandler, RouteSpec } from "./handler";

/**
 * The organisation API (/api/orgs, docs/API-NOTES.md "Organisations"): a signed-in person, the
 * organisations tag, the rate-limit category each route declares (null: none), and the statuses every such route may answer: 403 (a role below
 * the action's) and 404 (an organisation the person does not belong to, answered as one that does not exist).
 */
export function orgRoute<
  Q extends ZodType | undefined = undefined,
  B extends ZodType | undefined = undefined,
  R extends ZodType | undefined = undefined,
>(
  spec: Omit<RouteSpec<Q, B, "session", R>, "auth" | "rateLimit"> & Required<Pick<RouteSpec<Q, B, "session", R>, "rateLimit">>,
  handler: RouteHandler<Q, B, "session", R>,
): NextRouteHandler {
  return route<Q, B, "session", R>(
    { auth: "session", tags: ["organisations"], ...spec, errors: [...new Set([403, 404, ...(spec.errors ?? [])])].sort() },
    handler,
  );
}

/**
 * The routes an account's owners manage on its behalf (webhook endpoints): a signed-in person acting
 * for their own account, or for an organisation as its owner or an admin (a member: 403); the
 * rate-limit category each route declares (null: none); another account's resource answers 404.
 */
export function accountAdminRoute<
  Q extends ZodType | undefined = undefined,
  B extends ZodType | undefined = undefined,
  R extends ZodType | undefined = undefined,
>(
  spec: Omit<RouteSpec<Q, B, "session", R>, "auth" | "rateLimit" | "account"> & Required<Pick<RouteSpec<Q, B, "session", R>, "rateLimit">>,
  handler: RouteHandler<Q, B, "session", R>,
): NextRouteHandler {
  return route<Q, B, "session", R>(
    { auth: "session", account: "admin", ...spec, errors: [...new Set([403, 404, ...(spec.errors ?? [])])].sort() },
    handler,
  );
}
