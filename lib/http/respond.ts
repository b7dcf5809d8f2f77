import type { ErrorCode } from "@/lib/errors";
import { withoutCredentials } from "@/lib/credential-shapes";

/** Response helpers shared by the route wrapper and streaming handlers. */
export function json(body: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  if (!headers.has("content-type")) headers.set("content-type", "application/json; charset=utf-8");
  return new Response(JSON.stringify(body), { ...init, headers });
}

/**
 * Every error body: `error`, the message for people (SPEC's contract), and `code`, the stable
 * machine-readable reason (lib/errors.ts ErrorCode; documented per operation in the OpenAPI). A
 * message never repeats a credential-shaped value it was built from (lib/credential-shapes.ts).
 */
export function errorResponse(status: number, message: string, code: ErrorCode, headers?: HeadersInit): Response {
  return json({ error: withoutCredentials(message), code }, { status, headers });
}

/**
 * A CSV download (a report's text or a streamed export): never cached, named for the browser's save
 * dialog, and, for a paged report, the next page's cursor in X-Next-Cursor.
 */
export function csvResponse(body: string | ReadableStream<Uint8Array>, filename: string, nextCursor?: string | null): Response {
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${filename}"`,
      "cache-control": "no-store",
      ...(nextCursor ? { "x-next-cursor": nextCursor } : {}),
    },
  });
}

/**
 * Server-sent events response around a byte stream. No `Connection` header: HTTP/1.1 keeps the
 * connection by default, HTTP/2 forbids the header, and setting it would keep a connection its client
 * asked to close.
 */
export function sse(stream: ReadableStream<Uint8Array>, headers?: HeadersInit): Response {
  const h = new Headers(headers);
  h.set("content-type", "text/event-stream; charset=utf-8");
  h.set("cache-control", "no-cache, no-transform");
  h.set("x-accel-buffering", "no");
  return new Response(stream, { status: 200, headers: h });
}

/** Redirect with an explicit status (Next's redirect() answers 307; some flows need exactly 302). */
export function redirect(location: string, status: 301 | 302 | 303 | 307 | 308 = 302): Response {
  return new Response(null, { status, headers: { location } });
}
