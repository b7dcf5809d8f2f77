import type { IncomingMessage, ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import { securityHeaders } from "@/lib/config/security-headers";
import { tracingEnabled } from "@/lib/tracing";

/**
 * The gateway lane (docs/ARCHITECTURE.md "The gateway lane"): the standalone server answers the hot AI
 * routes by calling their route handlers itself, straight from node:http, instead of through Next's
 * router. The handler is the one Next would call (the route's own compiled module, so the same lib
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
 *   - the route span, when tracing is on: a server span named "POST <route>", child of the caller's
 *     traceparent, active while the handler runs (the wrapper tags it with the request id; the credit
 *     and provider spans are its children).
 * Anything else (another method or path) goes on to Next, and so does everything when a laned route's
 * module cannot be loaded as the lane expects (lib/server/next-internals.ts checks it): the lane turns
 * itself off, loudly.
 * `next dev` has no lane: the route handlers answer there. GATEWAY_LANE=false turns it off.
 */
export type LaneRouteHandler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** The laned routes: path → the route's compiled module under <distDir>/server. */
export const LANE_ROUTES: Readonly<Record<string, string>> = {
  "/api/ai/chat": "app/api/ai/chat/route.js",
  "/api/ai/stream": "app/api/ai/stream/route.js",
  "/v1/chat/completions": "app/v1/chat/completions/route.js",
};

export interface GatewayLaneOptions {
  /**
   * The route's POST handler (lib/server/next-internals.ts loadRouteHandler). A failure or null for any
   * laned route turns the lane off as a whole, with one error line: Next answers every route then.
   */
  loadHandler: (modulePath: string) => Promise<LaneRouteHandler | null>;
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

/**
 * How much of a body the handler left unread (it answered first: 401, 403, 413, 415, 429) is read
 * and dropped after the answer so the kept-alive connection can serve the next request. A larger
 * rest, or one of unknown length, closes the connection instead (`Connection: close`, then the socket
 * once the answer is out): Node's own server would read any amount.
 */
const DRAIN_LIMIT_BYTES = 1024 * 1024;

const formatHostname = (host: string) => (host.includes(":") && !host.startsWith("[") ? `[${host}]` : host);

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
      for (const [route, modulePath] of Object.entries(LANE_ROUTES)) {
        const handler = await options.loadHandler(modulePath);
        if (!handler) throw new Error(`${route}: the route module has no POST handler`);
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
      if (state !== "on" || req.method !== "POST") return false;
      const route = routeOf(req.url);
      const handler = route ? handlers?.get(route) : undefined;
      if (!route || !handler) return false;
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

/** A request's body as a web stream, and the way to stop feeding it once the answer is given. */
interface RequestBody {
  stream: ReadableStream<Uint8Array>;
  /** Stops delivering to the stream (what is left is the connection's to drain or close). */
  detach(): void;
}

/**
 * The request body as the handler reads it: chunks as they arrive, the socket paused while 64 KiB wait
 * unread. Unlike Readable.toWeb, cancelling it (a body refused half-read: 413) does not destroy the
 * request and with it the socket before the answer is written: the rest is left to settleUnreadBody.
 */
function requestBody(req: IncomingMessage): RequestBody {
  let open = true;
  let onData: (chunk: Buffer) => void = () => undefined;
  let onEnd: () => void = () => undefined;
  let onError: (error: Error) => void = () => undefined;
  const detach = () => {
    if (!open) return;
    open = false;
    req.off("data", onData);
    req.off("end", onEnd);
    req.off("error", onError);
    req.pause();
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        onData = (chunk) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 1) <= 0) req.pause();
        };
        onEnd = () => {
          detach();
          controller.close();
        };
        onError = (error) => {
          detach();
          controller.error(error);
        };
        req.on("data", onData);
        req.once("end", onEnd);
        req.once("error", onError);
      },
      pull() {
        if (open) req.resume();
      },
      cancel() {
        detach();
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
  return { stream, detach };
}

/** Whether the body's unread rest is known to fit DRAIN_LIMIT_BYTES (then the connection is kept). */
function restFitsDrain(req: IncomingMessage): boolean {
  const declared = Number(req.headers["content-length"]);
  return req.headers["transfer-encoding"] === undefined && Number.isFinite(declared) && declared <= DRAIN_LIMIT_BYTES;
}

/**
 * After an answer given before the body was read to its end: the rest is read and dropped (at most
 * DRAIN_LIMIT_BYTES), so the next request on the connection is read from where it starts; past that,
 * the socket is closed once the answer is out (the answer said `Connection: close`).
 */
function settleUnreadBody(req: IncomingMessage, res: ServerResponse, body: RequestBody | null): void {
  body?.detach();
  if (req.complete || req.destroyed) return;
  let drained = 0;
  const tooMuch = () => {
    req.pause();
    if (res.writableFinished) req.socket?.destroy();
    else res.once("finish", () => req.socket?.destroy());
  };
  req.on("data", (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_LIMIT_BYTES) tooMuch();
  });
  req.resume();
}

/** The request a route handler gets from Next, built from the node request. */
function toRequest(
  req: IncomingMessage,
  res: ServerResponse,
  hostname: string,
): { request: Request; abort: AbortController; body: RequestBody | null } {
  const encrypted = Boolean((req.socket as { encrypted?: boolean }).encrypted);
  const https = encrypted || String(req.headers["x-forwarded-proto"] ?? "").includes("https");
  const port = req.socket.localPort;
  // Next fills these when the client sent none (base-server.js), before the route handler runs.
  req.headers["x-forwarded-host"] ??= req.headers.host ?? hostname;
  req.headers["x-forwarded-port"] ??= String(port ?? (https ? 443 : 80));
  req.headers["x-forwarded-proto"] ??= https ? "https" : "http";
  if (req.socket.remoteAddress) req.headers["x-forwarded-for"] ??= req.socket.remoteAddress;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(":")) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  const abort = new AbortController();
  // The client left before its answer was written: the handler's signal says so (an upstream call
  // stops, its reservation is settled for what was produced).
  res.once("close", () => {
    if (!res.writableFinished) abort.abort(new Error("client disconnected"));
  });
  const hasBody =
    req.headers["transfer-encoding"] !== undefined ||
    (req.headers["content-length"] !== undefined && req.headers["content-length"] !== "0");
  const init: RequestInit & { duplex: "half" } = { method: "POST", headers, signal: abort.signal, duplex: "half" };
  const body = hasBody ? requestBody(req) : null;
  if (body) init.body = body.stream;
  const url = `${https ? "https" : "http"}://${formatHostname(hostname)}:${port}${req.url}`;
  return { request: new Request(url, init), abort, body };
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
    span = trace
      .getTracer("gateway-lane")
      .startSpan(
        `POST ${route}`,
        { kind: SpanKind.SERVER, attributes: { "http.method": "POST", "http.route": route, "http.target": route, "next.route": route } },
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

function acceptsGzip(req: IncomingMessage): boolean {
  const accepted = String(req.headers["accept-encoding"] ?? "").toLowerCase();
  return /(?:^|,)\s*(?:gzip|\*)\s*(?:,|;(?!\s*q=0(?:\.0*)?\s*(?:,|$))|$)/.test(accepted);
}

/** Gzip from 1 KB (the compression package's threshold); never an event stream or a no-transform answer. */
const GZIP_THRESHOLD = 1024;

async function writeResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
  security: { key: string; value: string }[],
): Promise<void> {
  res.statusCode = response.status;
  for (const { key, value } of security) res.setHeader(key, value);
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") res.setHeader(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  if (!response.body) {
    res.end();
    return;
  }
  const contentType = response.headers.get("content-type") ?? "";
  if (!contentType.startsWith("text/event-stream")) {
    let body = Buffer.from(await response.arrayBuffer());
    if (!/no-transform/i.test(response.headers.get("cache-control") ?? "")) {
      res.setHeader("vary", response.headers.has("vary") ? `${response.headers.get("vary")}, Accept-Encoding` : "Accept-Encoding");
      if (body.length >= GZIP_THRESHOLD && !response.headers.has("content-encoding") && acceptsGzip(req)) {
        body = gzipSync(body);
        res.setHeader("content-encoding", "gzip");
      }
    }
    res.setHeader("content-length", body.length);
    res.end(body);
    return;
  }
  await writeStream(res, response.body);
}

/** An event stream, chunk by chunk as the handler produces them; cancelled when the client leaves. */
async function writeStream(res: ServerResponse, body: ReadableStream<Uint8Array>): Promise<void> {
  const reader = body.getReader();
  let closed = false;
  const onClose = () => {
    closed = true;
    if (!res.writableFinished) reader.cancel(new Error("client disconnected")).catch(() => undefined);
  };
  res.once("close", onClose);
  res.flushHeaders();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (closed) return;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off("drain", go);
            res.off("close", go);
            resolve();
          };
          res.on("drain", go);
          res.on("close", go);
        });
      }
    }
    res.end();
  } catch {
    // The stream failed or was cancelled: the client is gone or the handler framed the error itself.
    if (!closed) res.destroy();
  }
}
