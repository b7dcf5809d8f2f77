import type { IncomingMessage, ServerResponse } from "node:http";
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import { securityHeaders } from "@/lib/config/security-headers";
import { tracingEnabled } from "@/lib/tracing";
import { hasBody, restFitsDrain, settleUnreadBody, toRequest } from "./lane-request";
import { writeResponse } from "./lane-response";

/**
 * The gateway lane (docs/ARCHITECTURE.md "The gateway lane"): the standalone server answers the hot AI
 * routes, and the plain GETs a dashboard or a client polls, by calling their route handlers itself,
 * straight from node:http, instead of through Next's router (about 1 ms of CPU per request). The
 * handler is the one Next would call (the route's own compiled module, so the same lib
 * module instances, caches and database pool): authentication, limits, the cross-site rule, schemas,
 * charging, metrics, the access log and the error shape are all the route wrapper's (lib/http/handler.ts)
 * and identical on both paths. What the lane does is what Next does around a route handler:
 *   - the Request: Next's URL (the server's own host and port), the request headers with Next's
 *     x-forwarded-* defaults, the body streamed (never buffered: the wrapper bounds it), a signal that
 *     aborts when the client leaves before its answer is written;
 *   - the Response: the security headers next.config.ts gives every response, the handler's headers,
 *     JSON gzipped when the client accepts it (from 1 KB, the compression package's threshold: Next,
 *     which streams its bodies, compresses smaller ones too; an event
 *     stream never: it says no-transform), an event stream written chunk by chunk with backpressure
 *     and cancelled (the provider stopped, the reservation settled for what was produced) when the
 *     client leaves;
 *   - the route span, when tracing is on: a server span named "<METHOD> <route>", child of the caller's
 *     traceparent, active while the handler runs (the wrapper tags it with the request id; the credit
 *     and provider spans are its children).
 * Anything else (another method or path, HEAD, a GET with a body) goes on to Next, and so does
 * everything when a laned route's module cannot be loaded as the lane expects
 * (lib/server/next-internals.ts checks it): the lane turns itself off, loudly.
 * `next dev` has no lane: the route handlers answer there. GATEWAY_LANE=false turns it off.
 */
export type LaneRouteHandler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

export type LaneMethod = "GET" | "POST";

/** The laned routes: path → the method laned and the route's compiled module under <distDir>/server. */
export const LANE_ROUTES: Readonly<Record<string, { method: LaneMethod; module: string }>> = {
  "/api/ai/chat": { method: "POST", module: "app/api/ai/chat/route.js" },
  "/api/ai/stream": { method: "POST", module: "app/api/ai/stream/route.js" },
  "/v1/chat/completions": { method: "POST", module: "app/v1/chat/completions/route.js" },
  "/api/user/status": { method: "GET", module: "app/api/user/status/route.js" },
  "/api/ai/usage": { method: "GET", module: "app/api/ai/usage/route.js" },
  "/v1/models": { method: "GET", module: "app/v1/models/route.js" },
};

export interface GatewayLaneOptions {
  /**
   * The route's handler of that method (lib/server/next-internals.ts loadRouteHandler). A failure or null
   * for any laned route turns the lane off as a whole, with one error line: Next answers every route then.
   */
  loadHandler: (modulePath: string, method: LaneMethod) => Promise<LaneRouteHandler | null>;
  /** Whether the app has started (instrumentation ran: configuration checked, database open). */
  ready: () => boolean;
  /** The host name the server listens on (Next builds route handlers' URLs from it). */
  hostname: string;
  /** One JSON log line (the lane runs outside the app's logger). */
  logLine: (level: "info" | "error", msg: string, fields?: Record<string, unknown>) => void;
}

export interface GatewayLane {
  /** Answers the request and returns true when it is a laned route's, else returns false (Next's). */
  serve(req: IncomingMessage, res: ServerResponse): boolean;
}

/** On unless GATEWAY_LANE says false (false, 0 or no; lib/config/env-schema.ts refuses other values). */
export function gatewayLaneEnabled(value = process.env.GATEWAY_LANE): boolean {
  return !["false", "0", "no"].includes((value ?? "").trim().toLowerCase());
}

/**
 * The laned route of an exact path (the query aside). Any other spelling (a trailing slash, a doubled
 * slash, an encoded letter) goes on to Next, which answers it as it answers every route: a trailing
 * slash with its 308 redirect, never the route itself.
 */
function routeOf(url: string | undefined): string | null {
  if (!url) return null;
  const q = url.indexOf("?");
  const p = q < 0 ? url : url.slice(0, q);
  return Object.hasOwn(LANE_ROUTES, p) ? p : null;
}

export function createGatewayLane(options: GatewayLaneOptions): GatewayLane {
  // Loaded once the app has started: until then, and for good if any route fails to load, Next answers.
  let handlers: Map<string, LaneRouteHandler> | null = null;
  let state: "cold" | "loading" | "on" | "off" = "cold";
  // Read once the app has started: the lane is created before Next's server.js sets NODE_ENV, on
  // which HSTS depends (lib/config/security-headers.ts).
  let security: { key: string; value: string }[] | null = null;

  const load = async () => {
    const loaded = new Map<string, LaneRouteHandler>();
    try {
      for (const [route, { method, module }] of Object.entries(LANE_ROUTES)) {
        const handler = await options.loadHandler(module, method);
        if (!handler) throw new Error(`${route}: the route module has no ${method} handler`);
        loaded.set(route, handler);
      }
    } catch (error) {
      state = "off";
      options.logLine("error", "gateway lane is off: Next.js answers every route (as with GATEWAY_LANE=false)", {
        reason: (error as Error).message,
      });
      return;
    }
    handlers = loaded;
    state = "on";
  };

  return {
    serve(req, res) {
      if (state === "cold") {
        if (!options.ready()) return false;
        // The app is up: load every laned route now, so the first AI calls already take the lane.
        state = "loading";
        void load();
        return false;
      }
      if (state !== "on") return false;
      const route = routeOf(req.url);
      const handler = route ? handlers?.get(route) : undefined;
      if (!route || !handler || req.method !== LANE_ROUTES[route].method) return false;
      // A GET with a body: Next's to answer (a web Request cannot carry one).
      if (req.method === "GET" && hasBody(req)) return false;
      security ??= securityHeaders();
      answer(req, res, route, handler, options, security).catch((error: unknown) => {
        options.logLine("error", "gateway lane: request failed", { route, error: String(error) });
        if (!res.headersSent) {
          res.statusCode = 500;
          res.setHeader("content-type", "application/json; charset=utf-8");
          res.end(JSON.stringify({ error: "Internal server error", code: "internal" }));
        } else res.destroy();
      });
      return true;
    },
  };
}

async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  route: string,
  handler: LaneRouteHandler,
  options: GatewayLaneOptions,
  security: { key: string; value: string }[],
): Promise<void> {
  const { request, body } = toRequest(req, res, options.hostname);
  const params = Promise.resolve({});
  let span: Span | undefined;
  let response: Response;
  if (tracingEnabled()) {
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    span = trace.getTracer("gateway-lane").startSpan(
      `${req.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: { "http.method": req.method, "http.route": route, "http.target": route, "next.route": route },
      },
      parent,
    );
    const active = span;
    res.once("close", () => {
      active.setAttribute("http.status_code", res.statusCode);
      if (res.statusCode >= 500) active.setStatus({ code: SpanStatusCode.ERROR });
      active.end();
    });
    response = await context.with(trace.setSpan(parent, span), () => handler(request, { params }));
  } else {
    response = await handler(request, { params });
  }
  // Answered before the body was read to its end: keep the connection only if the rest is small.
  if (!req.complete && !restFitsDrain(req)) res.setHeader("connection", "close");
  settleUnreadBody(req, res, body);
  await writeResponse(req, res, response, security);
}
