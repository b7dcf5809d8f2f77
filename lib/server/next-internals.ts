import { existsSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import type { LaneMethod, LaneRouteHandler } from "./gateway-lane";

/**
 * Everything the standalone server's preflight (scripts/preflight.ts) relies on in Next.js's standalone
 * output that is not its public API, in one place, each piece checked when it is first used:
 *   - the build's directory, from the configuration Next's own server.js publishes
 *     (__NEXT_PRIVATE_STANDALONE_CONFIG);
 *   - a route's compiled module under <distDir>/server/app/..., whose handlers are its
 *     `routeModule.userland` once `ensureUserland()` ran (as Next itself loads it);
 *   - Next's request listener, which reaches node:http through http.createServer.
 * When one of them is not what it was (a Next.js upgrade), the gateway lane that uses them
 * (gateway-lane.ts) is turned off as a whole and says why in one error line; Next's router then answers
 * every route, as with GATEWAY_LANE=false.
 */
export class NextInternalsChanged extends Error {
  constructor(what: string) {
    super(`Next.js internals changed: ${what}`);
    this.name = "NextInternalsChanged";
  }
}

/** The build's directory as Next's standalone server.js published it. */
export function standaloneDistDir(): string {
  const raw = process.env.__NEXT_PRIVATE_STANDALONE_CONFIG;
  if (!raw) throw new NextInternalsChanged("__NEXT_PRIVATE_STANDALONE_CONFIG is not set by server.js");
  let config: { distDir?: unknown };
  try {
    config = JSON.parse(raw) as { distDir?: unknown };
  } catch {
    throw new NextInternalsChanged("__NEXT_PRIVATE_STANDALONE_CONFIG is not JSON");
  }
  return typeof config.distDir === "string" && config.distDir ? config.distDir : ".next";
}

/**
 * A laned route's handler of `method`: the route's compiled module as Next itself loads it (Node's own
 * require after next-server.js moved into this directory, so one module cache and one set of
 * instances), its handlers read once Next's lazy loading of the route's code has run. Checked to be
 * the route wrapper's own handler (it carries its declaration).
 */
export async function loadRouteHandler(modulePath: string, method: LaneMethod = "POST"): Promise<LaneRouteHandler> {
  const file = path.join(process.cwd(), standaloneDistDir(), "server", modulePath);
  if (!existsSync(file)) throw new NextInternalsChanged(`no compiled route module at ${path.relative(process.cwd(), file)}`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const compiled = require(file) as { routeModule?: { ensureUserland?: () => Promise<void>; userland?: Record<string, unknown> } };
  if (!compiled.routeModule) throw new NextInternalsChanged(`${modulePath} exports no routeModule`);
  if (typeof compiled.routeModule.ensureUserland === "function") await compiled.routeModule.ensureUserland();
  const handler = compiled.routeModule.userland?.[method] as (LaneRouteHandler & { definition?: unknown }) | undefined;
  if (typeof handler !== "function") throw new NextInternalsChanged(`${modulePath}: routeModule.userland.${method} is not a function`);
  if (!handler.definition)
    throw new NextInternalsChanged(`${modulePath}: routeModule.userland.${method} is not the route wrapper's handler`);
  return handler;
}

/**
 * Puts `listen` in front of the request listener of every server node:http creates from now on (Next's
 * own among them): it sees each request first and hands on to Next's listener unless it answered.
 * Answers whether any server was made that way yet (Next not using http.createServer any more would
 * leave it false once the app has started).
 */
export function interceptRequestListeners(
  listen: (req: http.IncomingMessage, res: http.ServerResponse, next: http.RequestListener) => void,
): { servers: http.Server[] } {
  const servers: http.Server[] = [];
  const createServer = http.createServer;
  http.createServer = function (this: unknown, ...args: unknown[]) {
    const at = args.findIndex((a) => typeof a === "function");
    if (at >= 0) {
      const next = args[at] as http.RequestListener;
      args[at] = (req: http.IncomingMessage, res: http.ServerResponse) => listen(req, res, next);
    }
    const server = (createServer as (...a: unknown[]) => http.Server).apply(this, args);
    servers.push(server);
    return server;
  } as typeof http.createServer;
  return { servers };
}
