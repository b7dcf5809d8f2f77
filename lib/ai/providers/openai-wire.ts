import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/**
 * The chat-completion hot path's HTTP client: one streamed POST to an OpenAI-compatible
 * `/chat/completions` on a pooled keep-alive connection (node:http, not fetch: no web-stream
 * wrapping of the body, no Next.js fetch instrumentation, no per-request SDK machinery). It sends what
 * the openai SDK sends for the same call (method, path, JSON body, Authorization and JSON headers) and
 * keeps its behaviour as the adapter configures it: no retries, one deadline for the whole answer
 * (the caller's signal), errors carrying the status, headers and the provider's error code.
 * Everything else (audio and image uploads, embeddings) stays on the SDK in provider-openai.ts.
 */
export class UpstreamHttpError extends Error {
  constructor(
    readonly status: number,
    readonly headers: { get(name: string): string | null },
    readonly code: string | null,
    readonly type: string | null,
    message: string,
  ) {
    super(message);
    this.name = "UpstreamHttpError";
  }
}

/**
 * Marks an error of a request that never left (aborted before its body was written): the provider
 * cannot bill it (lib/ai/providers/upstream-error.ts reachOf).
 */
export function isNotSent(error: unknown): boolean {
  return (error as { notSent?: boolean } | null)?.notSent === true;
}

/** An error the provider sent inside a 2xx stream: it had the request. */
export function isInStream(error: unknown): boolean {
  return (error as { inStream?: boolean } | null)?.inStream === true;
}

/** The connection could not be made or broke before an answer (the SDK's APIConnectionError). */
export class UpstreamConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "UpstreamConnectionError";
  }
}

/** The data of one SSE event (buffer[from..to)): its `data:` lines joined; "" when it has none. */
function eventData(buffer: string, from: number, to: number): string {
  // The common event: one `data: ...` line.
  if (buffer.startsWith("data:", from) && buffer.indexOf("\n", from) === to) {
    return buffer.slice(from + (buffer.charCodeAt(from + 5) === 32 ? 6 : 5), to);
  }
  const lines: string[] = [];
  for (const line of buffer.slice(from, to).split("\n"))
    if (line.startsWith("data:")) lines.push(line.slice(line.charCodeAt(5) === 32 ? 6 : 5));
  return lines.join("\n");
}

export interface WireClient {
  /** POSTs `body` and yields the `data:` payloads of the SSE answer (parsed JSON) until `[DONE]`, a batch per read. */
  postStream<T>(path: string, body: unknown, signal: AbortSignal): AsyncIterable<T[]>;
}

const DEFAULT_BASE_URL = "https://api.openai.com/v1";

export function createWireClient(options: { apiKey: string; baseURL?: string; userAgent: string }): WireClient {
  const base = new URL((options.baseURL ?? DEFAULT_BASE_URL).replace(/\/+$/, ""));
  const https = base.protocol === "https:";
  // One pool per provider: idle connections are kept (TLS included) and reused across requests.
  const agent = https ? new HttpsAgent({ keepAlive: true, maxSockets: 256 }) : new HttpAgent({ keepAlive: true, maxSockets: 256 });
  const send = https ? httpsRequest : httpRequest;
  const basePath = base.pathname === "/" ? "" : base.pathname;

  function open(path: string, body: unknown, signal: AbortSignal, accept: string, retried = false): Promise<IncomingMessage> {
    const payload = Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(Object.assign(new Error("aborted before sending"), { notSent: true }));
      let flushed = false;
      const req = send(
        {
          protocol: base.protocol,
          hostname: base.hostname,
          port: base.port || (https ? 443 : 80),
          path: `${basePath}${path}`,
          method: "POST",
          agent,
          headers: {
            authorization: `Bearer ${options.apiKey}`,
            "content-type": "application/json",
            accept,
            "content-length": payload.length,
            "user-agent": options.userAgent,
          },
        },
        (res) => {
          signal.removeEventListener("abort", onAbort);
          // The answer's body can still be aborted (a stream the caller stops, the deadline).
          const onBodyAbort = () => res.destroy(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
          signal.addEventListener("abort", onBodyAbort, { once: true });
          res.once("close", () => signal.removeEventListener("abort", onBodyAbort));
          resolve(res);
        },
      );
      const onAbort = () =>
        req.destroy(flushed ? new Error("aborted") : Object.assign(new Error("aborted before sending"), { notSent: true }));
      signal.addEventListener("abort", onAbort, { once: true });
      req.on("finish", () => (flushed = true));
      req.on("error", (error) => {
        signal.removeEventListener("abort", onAbort);
        // A kept-alive connection the provider closed as we reused it (its idle timeout racing our send):
        // nothing was answered, so the request goes once more on a new connection (Node's documented
        // pattern for request.reusedSocket). Any other failure, or a second one, is the provider's.
        if (!retried && !signal.aborted && req.reusedSocket && (error as NodeJS.ErrnoException).code === "ECONNRESET") {
          open(path, body, signal, accept, true).then(resolve, reject);
          return;
        }
        reject(signal.aborted ? error : new UpstreamConnectionError(`connection failed: ${error.message}`, { cause: error }));
      });
      req.end(payload);
    });
  }

  async function readAll(res: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }

  async function failure(res: IncomingMessage): Promise<UpstreamHttpError> {
    const text = await readAll(res).catch(() => "");
    let code: string | null = null;
    let type: string | null = null;
    let message = `status ${res.statusCode}`;
    try {
      const parsed = JSON.parse(text) as { error?: { message?: string; code?: string | number; type?: string } | string };
      const e = typeof parsed.error === "object" ? parsed.error : undefined;
      code = e?.code !== undefined && e.code !== null ? String(e.code) : null;
      type = e?.type ?? null;
      message = e?.message ?? (typeof parsed.error === "string" ? parsed.error : message);
    } catch {
      // not JSON: the status says enough
    }
    const headers = { get: (name: string) => (res.headers[name.toLowerCase()] as string | undefined) ?? null };
    return new UpstreamHttpError(res.statusCode ?? 0, headers, code, type, message);
  }

  return {
    async *postStream<T>(path: string, body: unknown, signal: AbortSignal): AsyncGenerator<T[]> {
      const res = await open(path, body, signal, "text/event-stream");
      if ((res.statusCode ?? 0) >= 400) throw await failure(res);
      // A 2xx answer that is not a stream is unusable (the provider had the request: it may bill it).
      if (!/event-stream/i.test(String(res.headers["content-type"] ?? ""))) {
        const text = await readAll(res).catch(() => "");
        throw new Error(`the answer is not an event stream (${text.slice(0, 80)})`);
      }
      res.setEncoding("utf8");
      let buffer = "";
      let finished = false;
      try {
        // Not destroyed when the loop returns at [DONE]: the finally below drains it for the pool.
        for await (const text of res.iterator({ destroyOnReturn: false })) {
          buffer += (text as string).indexOf("\r") >= 0 ? (text as string).replace(/\r\n/g, "\n") : (text as string);
          // Every complete event of this read, parsed, as one batch: one hop per read, not per event.
          const batch: T[] = [];
          let at = 0;
          let cut: number;
          while ((cut = buffer.indexOf("\n\n", at)) >= 0) {
            const data = eventData(buffer, at, cut);
            at = cut + 2;
            if (!data) continue;
            if (data === "[DONE]") {
              finished = true;
              if (batch.length) yield batch;
              return;
            }
            const parsed = JSON.parse(data) as T & { error?: { message?: string; code?: string; type?: string } };
            // An error sent inside the stream (the SDK throws it as an APIError too).
            if (parsed && typeof parsed === "object" && "error" in parsed && parsed.error) {
              const e = parsed.error;
              throw Object.assign(
                new UpstreamHttpError(500, { get: () => null }, e.code ?? null, e.type ?? null, e.message ?? "error in stream"),
                { inStream: true },
              );
            }
            batch.push(parsed as T);
          }
          buffer = at > 0 ? buffer.slice(at) : buffer;
          if (batch.length) yield batch;
        }
      } finally {
        // The answer ended ([DONE]): read what is left of it (its last chunk's terminator) so the
        // connection goes back to the pool, but only briefly: a provider still sending after [DONE]
        // is cut like any other. Stopped early (the caller's break, the deadline): close this
        // answer's socket, which stops the provider.
        if (!res.complete) {
          if (finished) {
            const cutOff = setTimeout(() => res.destroy(), 1_000);
            cutOff.unref();
            res.once("end", () => clearTimeout(cutOff));
            res.once("close", () => clearTimeout(cutOff));
            res.resume();
          } else res.destroy();
        }
      }
    },
  };
}
