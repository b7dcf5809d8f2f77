import type { ZodType } from "zod";
import { createRoute, type NextRouteHandler, type RouteHandler, type RouteSpec } from "./handler";

export { methods } from "./methods";

const edgeRuntime = { resolveUser: async () => null, rateLimit: async () => null };

/** Route wrapper for edge-runtime handlers: public, not rate-limited, no database (see handler.ts). */
export function edgeRoute<Q extends ZodType | undefined = undefined, R extends ZodType | undefined = undefined>(
  spec: RouteSpec<Q, undefined, "none", R> & { rateLimit?: never },
  handler: RouteHandler<Q, undefined, "none", R>,
): NextRouteHandler {
  return createRoute(edgeRuntime, spec, handler);
}
