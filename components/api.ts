/**
 * Browser-side API client of the dashboard: same-origin fetch with the session cookie, so every rule,
 * limit and charge of the API applies. Safe for client bundles: imports nothing from lib/.
 */
import type { ErrorCode } from "@/lib/errors";
import type { StreamDataEvent, StreamMeta } from "./types";

/** What went wrong: the API's error `code`, or "network" when the server was not reached. */
export type ApiErrorCode = ErrorCode | "network";

export class ApiError extends Error {
  /** Unix seconds when a rate-limited request may be retried (Retry-After or X-RateLimit-Reset). */
  readonly retryAt: number | null;
  readonly code: ApiErrorCode;

  constructor(
    readonly status: number,
    message: string,
    options: { code?: ApiErrorCode; retryAt?: number | null } = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.retryAt = options.retryAt ?? null;
    this.code = options.code ?? (status === 0 ? "network" : status >= 500 ? "internal" : "bad_request");
  }
}

/** When a 429 may be retried: Retry-After (seconds or a date), else X-RateLimit-Reset (Unix seconds). */
export function retryAtFrom(headers: Headers): number | null {
  const now = Date.now() / 1000;
  const after = headers.get("retry-after");
  if (after) {
    const seconds = Number(after);
    if (Number.isFinite(seconds)) return Math.ceil(now + seconds);
    const date = Date.parse(after);
    if (!Number.isNaN(date)) return Math.ceil(date / 1000);
  }
  const reset = Number(headers.get("x-ratelimit-reset"));
  return Number.isFinite(reset) && reset > 0 ? reset : null;
}

/** Turns a non-2xx response into an ApiError carrying the API's `{ error, code }`. */
export async function errorFrom(res: Response): Promise<ApiError> {
  let message = `Request failed with status ${res.status}`;
  let code: ApiErrorCode | undefined;
  try {
    const body = (await res.json()) as { error?: unknown; code?: unknown };
    if (typeof body?.error === "string" && body.error) message = body.error;
    if (typeof body?.code === "string") code = body.code as ApiErrorCode;
  } catch {
    // not JSON: keep the status message
  }
  return new ApiError(res.status, message, { code, retryAt: res.status === 429 ? retryAtFrom(res.headers) : null });
}

/** Any fetch failure as an ApiError (status 0 = the network, not the API). */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError(0, error instanceof Error ? `Could not reach the server: ${error.message}` : "Could not reach the server");
}

/** fetch + JSON; throws ApiError on non-2xx. */
export async function apiJson<T>(path: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
  return (await apiJsonWithHeaders<T>(path, init)).data;
}

/** Like apiJson, also returning the response headers (e.g. X-Cache of POST /api/ai/chat). */
export async function apiJsonWithHeaders<T>(
  path: string,
  init: RequestInit & { json?: unknown } = {},
): Promise<{ data: T; headers: Headers }> {
  const { json, headers, ...rest } = init;
  let res: Response;
  try {
    res = await fetch(path, {
      credentials: "same-origin",
      // The API's private cache lifetimes (status 300 s, subscription 60 s) would show stale state right
      // after a purchase or a change; the dashboard always asks the server.
      cache: "no-store",
      ...rest,
      headers: { accept: "application/json", ...(json !== undefined ? { "content-type": "application/json" } : {}), ...headers },
      body: json !== undefined ? JSON.stringify(json) : rest.body,
    });
  } catch (error) {
    throw toApiError(error);
  }
  if (!res.ok) throw await errorFrom(res);
  return { data: (await res.json()) as T, headers: res.headers };
}

export interface SseHandlers {
  onText?(text: string): void;
  onMeta?(meta: StreamMeta): void;
}

/**
 * Reads a text/event-stream body (DESIGN.md §4 framing): `data: {"type":"text"}` chunks, `event: meta`,
 * `data: {"type":"error"}` (thrown as ApiError 500 after the text so far was delivered), `data: [DONE]`.
 */
export async function readSse(res: Response, handlers: SseHandlers): Promise<{ done: boolean }> {
  if (!res.body) throw new ApiError(500, "The server sent an empty stream", { code: "internal" });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let done = false;
  for (;;) {
    const { value, done: ended } = await reader.read();
    if (value) buffer += value.replace(/\r\n/g, "\n");
    let cut: number;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let event: string | undefined;
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      const payload = data.join("\n");
      if (!payload) continue;
      if (payload === "[DONE]") {
        done = true;
        continue;
      }
      let parsed: StreamDataEvent | StreamMeta;
      try {
        parsed = JSON.parse(payload) as StreamDataEvent | StreamMeta;
      } catch {
        continue;
      }
      if (event === "meta") handlers.onMeta?.(parsed as StreamMeta);
      else if ("type" in parsed && parsed.type === "text") handlers.onText?.(parsed.text);
      else if ("type" in parsed && parsed.type === "error")
        throw new ApiError(500, parsed.error || "The stream failed", { code: "upstream_failed" });
    }
    if (ended) break;
  }
  return { done };
}

/** POST JSON and stream the SSE answer; a non-2xx answer throws its ApiError before any text. */
export async function postStream(path: string, body: unknown, handlers: SseHandlers, signal?: AbortSignal): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    throw toApiError(error);
  }
  if (!res.ok) throw await errorFrom(res);
  await readSse(res, handlers);
  return res;
}

export function formatDate(iso: string | null | undefined, withTime = false): string {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return withTime
    ? d.toLocaleString("en", { dateStyle: "medium", timeStyle: "short" })
    : d.toLocaleDateString("en", { dateStyle: "medium" });
}

export function formatMoney(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).format(amount);
  } catch {
    return `${currency} ${amount.toFixed(2)}`;
  }
}

/**
 * What an AI provider charged, in dollars: four decimals under a dollar (a call costs fractions of a
 * cent), two above; a cost too small for four decimals says so instead of "$0.0000".
 */
export function formatProviderCost(usd: number): string {
  if (usd === 0) return "$0";
  if (usd < 0.0001) return "under $0.0001";
  return usd < 1 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** "1 call", "2 calls": a count and its noun, singular when it is one. */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? singular : plural}`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
