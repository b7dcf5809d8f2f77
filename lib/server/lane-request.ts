import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * The gateway lane's side of a request (lib/server/gateway-lane.ts): the Request a route handler gets
 * from Next, built from the node request, and what becomes of a body the handler left unread.
 */
/**
 * How much of a body the handler left unread (it answered first: 401, 403, 413, 415, 429) is read
 * and dropped after the answer so the kept-alive connection can serve the next request. A larger
 * rest, or one of unknown length, closes the connection instead (`Connection: close`, then the socket
 * once the answer is out): Node's own server would read any amount.
 */
export const DRAIN_LIMIT_BYTES = 1024 * 1024;

const formatHostname = (host: string) => (host.includes(":") && !host.startsWith("[") ? `[${host}]` : host);

/** A request's body as a web stream, and the way to stop feeding it once the answer is given. */
export interface RequestBody {
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
export function restFitsDrain(req: IncomingMessage): boolean {
  const declared = Number(req.headers["content-length"]);
  return req.headers["transfer-encoding"] === undefined && Number.isFinite(declared) && declared <= DRAIN_LIMIT_BYTES;
}

/**
 * After an answer given before the body was read to its end: the rest is read and dropped (at most
 * DRAIN_LIMIT_BYTES), so the next request on the connection is read from where it starts; past that,
 * the socket is closed once the answer is out (the answer said `Connection: close`).
 */
export function settleUnreadBody(req: IncomingMessage, res: ServerResponse, body: RequestBody | null): void {
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

/** Whether the request says a body follows (a length above 0, or chunks). */
export function hasBody(req: IncomingMessage): boolean {
  return (
    req.headers["transfer-encoding"] !== undefined || (req.headers["content-length"] !== undefined && req.headers["content-length"] !== "0")
  );
}

/** The request a route handler gets from Next, built from the node request (a POST, or a GET without a body). */
export function toRequest(
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
  const method = req.method === "GET" ? "GET" : "POST";
  const init: RequestInit & { duplex: "half" } = { method, headers, signal: abort.signal, duplex: "half" };
  const body = method === "POST" && hasBody(req) ? requestBody(req) : null;
  if (body) init.body = body.stream;
  const url = `${https ? "https" : "http"}://${formatHostname(hostname)}:${port}${req.url}`;
  return { request: new Request(url, init), abort, body };
}
