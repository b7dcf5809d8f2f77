import type { IncomingMessage, ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";

/**
 * The gateway lane's side of an answer (lib/server/gateway-lane.ts): what Next does with a route
 * handler's Response, the security headers, JSON gzipped from 1 KB when accepted, an event stream
 * written chunk by chunk with backpressure and cancelled when the client leaves.
 */
function acceptsGzip(req: IncomingMessage): boolean {
  const accepted = String(req.headers["accept-encoding"] ?? "").toLowerCase();
  return /(?:^|,)\s*(?:gzip|\*)\s*(?:,|;(?!\s*q=0(?:\.0*)?\s*(?:,|$))|$)/.test(accepted);
}

/** Gzip from 1 KB (the compression package's threshold); never an event stream or a no-transform answer. */
const GZIP_THRESHOLD = 1024;

export async function writeResponse(
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
  // The headers leave with the first chunk when it is already there (a charged stream's is: its first
  // text was awaited before the answer began), else alone at the end of this turn. Node corks a
  // response's socket for the rest of a turn at each write, but not for flushHeaders.
  const socket = res.socket;
  socket?.cork();
  res.flushHeaders();
  process.nextTick(() => {
    if (!res.writableEnded) socket?.uncork();
  });
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
