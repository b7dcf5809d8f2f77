import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * What the provider stubs share (tests/helpers/anthropic-stub.ts, gemini-stub.ts): a behaviour queue
 * per endpoint (failure injection), request records, stream accounting, and small HTTP helpers.
 */
export type Behaviour =
  /** Answer with the vendor's error body and this status (429 with Retry-After, 529 overloaded, 5xx...). */
  | { kind: "error"; status: number; message?: string; retryAfter?: string }
  /** Wait, then answer normally. */
  | { kind: "delay"; ms: number }
  /** Never answer (until the client gives up). */
  | { kind: "hang" }
  /** Answer this text (streamed word by word). */
  | { kind: "reply"; text: string }
  /** Stream: send this many text chunks, then cut the connection. */
  | { kind: "break"; afterChunks: number }
  /** The vendor's content-policy refusal. */
  | { kind: "refuse" }
  /** Refuse the connection outright (the socket is destroyed before any answer). */
  | { kind: "drop" };

export interface RecordedRequest {
  endpoint: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: unknown;
}

export interface StubControls<E extends string> {
  requests: RecordedRequest[];
  count(endpoint?: E): number;
  /** Queue a behaviour for the next `times` requests of an endpoint. */
  next(endpoint: E, behaviour: Behaviour, times?: number): void;
  /** Every request of an endpoint with nothing queued (null: normal). */
  setDefault(endpoint: E, behaviour: Behaviour | null): void;
  /** Token usage every answer reports instead of the stub's estimate. */
  usage: { input: number; output: number; cached?: number } | null;
  /** Delay between streamed chunks, ms. */
  chunkDelayMs: number;
  streams: { opened: number; completed: number; clientClosed: number };
  reset(): void;
}

/**
 * `covers`: an endpoint that includes another (a vendor's chat endpoint covers its streamed form,
 * which the product always uses): count(chat) counts both, and a streamed request takes a behaviour
 * queued for the stream first, then one queued for the endpoint that covers it.
 */
export function stubControls<E extends string>(
  covers: Partial<Record<E, E>> = {},
): StubControls<E> & { behaviourFor(endpoint: E): Behaviour | null } {
  const queues = new Map<E, Behaviour[]>();
  const defaults = new Map<E, Behaviour | null>();
  const coveredBy = (endpoint: E): E[] => [
    endpoint,
    ...(Object.entries(covers) as [E, E][]).filter(([, inner]) => inner === endpoint).map(([outer]) => outer),
  ];
  const controls = {
    requests: [] as RecordedRequest[],
    count: (endpoint?: E) =>
      endpoint ? controls.requests.filter((r) => coveredBy(r.endpoint as E).includes(endpoint)).length : controls.requests.length,
    next(endpoint: E, behaviour: Behaviour, times = 1) {
      const q = queues.get(endpoint) ?? [];
      for (let i = 0; i < times; i++) q.push(behaviour);
      queues.set(endpoint, q);
    },
    setDefault: (endpoint: E, behaviour: Behaviour | null) => void defaults.set(endpoint, behaviour),
    usage: null as StubControls<E>["usage"],
    chunkDelayMs: 0,
    streams: { opened: 0, completed: 0, clientClosed: 0 },
    reset() {
      controls.requests.length = 0;
      queues.clear();
      defaults.clear();
      controls.usage = null;
      controls.chunkDelayMs = 0;
      controls.streams = { opened: 0, completed: 0, clientClosed: 0 };
    },
    behaviourFor(endpoint: E): Behaviour | null {
      const names = coveredBy(endpoint);
      for (const name of names) {
        const q = queues.get(name);
        if (q && q.length) return q.shift() ?? null;
      }
      for (const name of names) if (defaults.get(name)) return defaults.get(name) ?? null;
      return null;
    },
  };
  return controls;
}

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : {};
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The words of a reply, as stream chunks ("stub reply to: ..." split after each space). */
export const pieces = (text: string) => text.match(/\S+\s*/g) ?? [text];

/** A rough token count for usage the test did not fix (4 characters a token, at least 1). */
export const roughTokens = (value: unknown) => Math.max(1, Math.ceil(JSON.stringify(value ?? "").length / 4));

/**
 * Applies a behaviour that decides the whole answer before any content (delay, hang, drop, error);
 * true when the answer is done. `error` writes the vendor's error body.
 */
export async function applyBefore(
  b: Behaviour | null,
  res: ServerResponse,
  error: (status: number, message: string, headers: Record<string, string>) => void,
): Promise<boolean> {
  if (!b) return false;
  if (b.kind === "delay") {
    await sleep(b.ms);
    return false;
  }
  if (b.kind === "hang") {
    await new Promise<void>((resolve) => res.once("close", () => resolve()));
    return true;
  }
  if (b.kind === "drop") {
    res.socket?.destroy();
    return true;
  }
  if (b.kind === "error") {
    error(b.status, b.message ?? `stub failure ${b.status}`, b.retryAfter ? { "retry-after": b.retryAfter } : {});
    return true;
  }
  return false;
}

/** Counts a stream's end: completed, or closed early by its client. */
export function trackStream(controls: StubControls<string>, res: ServerResponse): { finish(): void; cut(): void } {
  let finished = false;
  controls.streams.opened++;
  res.on("close", () => {
    if (!finished) controls.streams.clientClosed++;
  });
  return {
    finish() {
      finished = true;
      controls.streams.completed++;
    },
    /** The stub itself cut the stream (a server-side failure, not a client close). */
    cut() {
      finished = true;
    },
  };
}

/** Starts a stub's server on 127.0.0.1 (a free port) and gives its controls the URL and a close that ends kept-alive connections. */
export async function listenStub<T extends object>(server: Server, controls: T): Promise<T & { url: string; close: () => Promise<void> }> {
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(controls, {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
