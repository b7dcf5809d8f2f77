import type { ZodType } from "zod";
import { createRoute, type Infer, type NextRouteHandler, type RouteContext, type RouteSpec } from "./handler";

export { methods } from "./handler";

const edgeRuntime = { resolveUser: async () => null, rateLimit: async () => null };

/** Route wrapper for edge-runtime handlers: public, not rate-limited, no database (see handler.ts). */
export function edgeRoute<Q extends ZodType | undefined = undefined>(
  spec: RouteSpec<Q, undefined, "none"> & { rateLimit?: never },
  handler: (ctx: RouteContext<Infer<Q>, undefined, "none">) => Promise<Response | object> | Response | object,
): NextRouteHandler {
  return createRoute(edgeRuntime, spec, handler);
}
