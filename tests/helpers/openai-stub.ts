import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import busboy from "busboy";

/**
 * A local OpenAI-compatible server (real HTTP on 127.0.0.1, ephemeral port) speaking the wire protocol
 * the openai SDK uses:
 *   POST /v1/chat/completions     JSON, or SSE with `stream: true` (+ a usage chunk when
 *                                 stream_options.include_usage), terminated by `data: [DONE]`;
 *                                 behaviours queued for "chat" apply to both, "stream" to streams only
 *   POST /v1/audio/transcriptions multipart (file, model, response_format, language) -> verbose_json
 *   POST /v1/images/generations   JSON -> { created, data: [{ b64_json, revised_prompt }], output_format, ... }
 *   POST /v1/embeddings           JSON -> deterministic vectors
 * Behaviour is programmable per endpoint (failures, delays, refusals, hanging, mid-stream failure),
 * every request is recorded (tests assert "no upstream call"), and stream closes by the client are
 * counted (tests assert that an abort reached the upstream). Used by tests and by bench/.
 */
/** Parsed JSON of arbitrary shape (wire payloads). */

type Loose = any;

export type StubEndpoint = "chat" | "stream" | "transcriptions" | "images" | "embeddings";

export type StubBehaviour =
  /** Answer with an OpenAI-style error body. */
  | { kind: "error"; status: number; message?: string; code?: string; type?: string; retryAfter?: string }
  /** Content-policy refusal: 400 content_policy_violation (images, transcriptions), message.refusal (chat), a refusal delta (stream). */
  | { kind: "refuse" }
  /** Wait, then answer normally. */
  | { kind: "delay"; ms: number }
  /** Never answer (until the client gives up). */
  | { kind: "hang" }
  /** Chat: answer this text (streamed in chunks for streams). */
  | { kind: "reply"; text: string }
  /** Stream: send this many chunks, then destroy the connection. */
  | { kind: "break"; afterChunks: number }
  /** Non-JSON garbage with status 200. */
  | { kind: "garbage" };

export interface StubRequest {
  endpoint: StubEndpoint;
  path: string;
  headers: IncomingMessage["headers"];
  /** Parsed JSON body, or multipart fields (file described by name/size/type). */
  body: Loose;
  at: number;
}

export interface OpenAiStubOptions {
  /** Chunks per streamed answer (default: one per word of the reply). */
  chunkDelayMs?: number;
  /** Dimension of embedding vectors (default 8). */
  embeddingDim?: number;
  /** Keep request records (default true; benchmarks switch it off). */
  record?: boolean;
  /** Answer every chat with this many words (an answer of a realistic length whatever the prompt) instead of echoing the prompt. */
  replyWords?: number;
  /**
   * How long idle connections stay open (default 1000 ms, so tests end promptly). A real provider
   * keeps them much longer; with 1 s, undici's 2 s safety margin makes the client reconnect per call.
   */
  keepAliveMs?: number;
}

export interface OpenAiStub {
  /** Base URL for OPENAI_BASE_URL, e.g. http://127.0.0.1:54321/v1 */
  url: string;
  port: number;
  requests: StubRequest[];
  /** Requests counted per endpoint (or all). */
  count(endpoint?: StubEndpoint): number;
  /** Queue a behaviour for the next `times` requests of an endpoint. */
  next(endpoint: StubEndpoint, behaviour: StubBehaviour, times?: number): void;
  /** Behaviour of every request of an endpoint with nothing queued (null = normal). */
  setDefault(endpoint: StubEndpoint, behaviour: StubBehaviour | null): void;
  /** Transcription result (verbose_json fields). */
  transcription: { text: string; language: string; duration: number };
  /** Delay between streamed chunks in ms (default 0). */
  chunkDelayMs: number;
  /** Token usage every chat answer reports (JSON and the stream's usage chunk) instead of the stub's estimate. */
  usage: { promptTokens: number; completionTokens: number; cachedTokens?: number } | null;
  /** Stream accounting: opened, finished normally, closed early by the client. */
  streams: { opened: number; completed: number; clientClosed: number; active: number };
  /** Requests under a "hang" behaviour that the client closed (gave up or aborted). */
  abandoned: number;
  /** Resolves when `n` streams have been closed by their client (or rejects after ms). */
  waitForClientClose(n: number, ms?: number): Promise<void>;
  reset(): void;
  close(): Promise<void>;
}

const JPEG_1X1 = Buffer.from(
  "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=",
  "base64",
);
const WEBP_1X1 = Buffer.from("UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA", "base64");
/** An 8x8 RGBA PNG (kept inline so the stub needs nothing but Node and busboy; bench/ reuses it). */
const PNG_8X8 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAYAAADED76LAAAALElEQVR4nGNkYGj4r8DAwIALMzIoEFLgQEhBAiEFDYQULCCk4AAhBQ/wKwAAt80WgY5kOdAAAAAASUVORK5CYII=",
  "base64",
);

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function readMultipart(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, unknown> = {};
    const bb = busboy({ headers: req.headers });
    bb.on("field", (name, value) => (fields[name] = value));
    bb.on("file", (name, stream, info) => {
      let size = 0;
      const head: Buffer[] = [];
      stream.on("data", (c: Buffer) => {
        if (size < 64) head.push(c);
        size += c.length;
      });
      stream.on(
        "end",
        () =>
          (fields[name] = {
            filename: info.filename,
            mimeType: info.mimeType,
            size,
            head: Buffer.concat(head).subarray(0, 16).toString("hex"),
          }),
      );
    });
    bb.on("close", () => resolve(fields));
    bb.on("error", reject);
    req.pipe(bb);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  code: string | null = null,
  type = "invalid_request_error",
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error: { message, type, param: null, code } }, headers);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function lastUserText(body: Loose): string {
  const messages: Loose[] = Array.isArray(body?.messages) ? body.messages : [];
  const last = [...messages].reverse().find((m) => m?.role === "user") ?? messages[messages.length - 1];
  if (!last) return "";
  if (typeof last.content === "string") return last.content;
  if (Array.isArray(last.content)) return last.content.map((p: Loose) => (p?.type === "text" ? p.text : "[image]")).join(" ");
  return "";
}

const FIXED_WORDS = ["the", "answer", "is", "a", "short", "plain", "reply", "of", "known", "length"];
const fixedReply = (words: number) => Array.from({ length: words }, (_, i) => FIXED_WORDS[i % FIXED_WORDS.length]).join(" ");

export async function startOpenAiStub(options: OpenAiStubOptions = {}): Promise<OpenAiStub> {
  const queues = new Map<StubEndpoint, StubBehaviour[]>();
  const defaults = new Map<StubEndpoint, StubBehaviour | null>();
  const record = options.record ?? true;
  const closeWaiters: { n: number; resolve: () => void }[] = [];

  const stub: OpenAiStub = {
    url: "",
    port: 0,
    requests: [],
    // "chat" counts every chat completion (streamed or not: the product streams them all), "stream" the streamed ones.
    count: (endpoint) =>
      endpoint
        ? stub.requests.filter((r) => r.endpoint === endpoint || (endpoint === "chat" && r.endpoint === "stream")).length
        : stub.requests.length,
    next(endpoint, behaviour, times = 1) {
      const q = queues.get(endpoint) ?? [];
      for (let i = 0; i < times; i++) q.push(behaviour);
      queues.set(endpoint, q);
    },
    setDefault: (endpoint, behaviour) => void defaults.set(endpoint, behaviour),
    transcription: { text: "stub transcription of the audio", language: "english", duration: 1.5 },
    chunkDelayMs: options.chunkDelayMs ?? 0,
    usage: null,
    streams: { opened: 0, completed: 0, clientClosed: 0, active: 0 },
    abandoned: 0,
    waitForClientClose(n, ms = 5000) {
      if (stub.streams.clientClosed >= n) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`stub: only ${stub.streams.clientClosed} of ${n} streams were closed by the client`)),
          ms,
        );
        closeWaiters.push({ n, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    reset() {
      stub.requests.length = 0;
      queues.clear();
      defaults.clear();
      // `active` is not reset: streams of an earlier test may still be closing.
      stub.streams = { opened: 0, completed: 0, clientClosed: 0, active: stub.streams.active };
      stub.abandoned = 0;
      stub.transcription = { text: "stub transcription of the audio", language: "english", duration: 1.5 };
      stub.chunkDelayMs = options.chunkDelayMs ?? 0;
      stub.usage = null;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };

  /** A streamed chat completion takes a behaviour queued for "stream" first, then one for "chat" (the endpoint as a whole). */
  const behaviourFor = (endpoint: StubEndpoint): StubBehaviour | null => {
    const names: StubEndpoint[] = endpoint === "stream" ? ["stream", "chat"] : [endpoint];
    for (const name of names) {
      const q = queues.get(name);
      if (q && q.length) return q.shift() ?? null;
    }
    for (const name of names) if (defaults.get(name)) return defaults.get(name) ?? null;
    return null;
  };

  /** Applies error/refuse/delay/hang/garbage; returns true when the response was fully handled. */
  async function applyCommon(b: StubBehaviour | null, req: IncomingMessage, res: ServerResponse, refusal: () => void): Promise<boolean> {
    if (!b) return false;
    if (b.kind === "delay") {
      await sleep(b.ms);
      return false;
    }
    if (b.kind === "hang") {
      await new Promise<void>((resolve) => res.once("close", () => resolve()));
      stub.abandoned++;
      return true;
    }
    if (b.kind === "error") {
      sendError(
        res,
        b.status,
        b.message ?? `stub failure ${b.status}`,
        b.code ?? null,
        b.type ?? (b.status >= 500 ? "server_error" : "invalid_request_error"),
        b.retryAfter ? { "retry-after": b.retryAfter } : {},
      );
      return true;
    }
    if (b.kind === "garbage") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("<html>not json</html>");
      return true;
    }
    if (b.kind === "refuse") {
      refusal();
      return true;
    }
    return false;
  }

  async function chat(req: IncomingMessage, res: ServerResponse, body: Loose, behaviour: StubBehaviour | null): Promise<void> {
    const model = body.model ?? "stub-model";
    const text =
      behaviour?.kind === "reply"
        ? behaviour.text
        : options.replyWords
          ? fixedReply(options.replyWords)
          : `stub reply to: ${lastUserText(body)}`;
    const promptTokens = stub.usage?.promptTokens ?? Math.max(1, Math.ceil(JSON.stringify(body.messages ?? []).length / 4));
    const completionTokens = stub.usage?.completionTokens ?? Math.max(1, text.split(/\s+/).filter(Boolean).length);
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      ...(stub.usage?.cachedTokens ? { prompt_tokens_details: { cached_tokens: stub.usage.cachedTokens } } : {}),
    };
    const id = `chatcmpl-${createHash("sha1")
      .update(String(Date.now() + Math.random()))
      .digest("hex")
      .slice(0, 12)}`;
    const created = Math.floor(Date.now() / 1000);

    if (!body.stream) {
      const handled = await applyCommon(behaviour, req, res, () =>
        sendJson(res, 200, {
          id,
          object: "chat.completion",
          created,
          model,
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: null, refusal: "I can't help with that." },
              finish_reason: "stop",
              logprobs: null,
            },
          ],
          usage: { prompt_tokens: promptTokens, completion_tokens: 5, total_tokens: promptTokens + 5 },
        }),
      );
      if (handled) return;
      sendJson(res, 200, {
        id,
        object: "chat.completion",
        created,
        model,
        choices: [{ index: 0, message: { role: "assistant", content: text, refusal: null }, finish_reason: "stop", logprobs: null }],
        usage,
      });
      return;
    }

    const handled = await applyCommon(behaviour?.kind === "refuse" ? null : behaviour, req, res, () => undefined);
    if (handled) return;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    stub.streams.opened++;
    stub.streams.active++;
    let finished = false;
    res.on("close", () => {
      stub.streams.active--;
      if (!finished) {
        stub.streams.clientClosed++;
        for (const w of [...closeWaiters])
          if (stub.streams.clientClosed >= w.n) {
            closeWaiters.splice(closeWaiters.indexOf(w), 1);
            w.resolve();
          }
      }
    });
    const frame = (payload: unknown) => res.write(`data: ${JSON.stringify(payload)}\n\n`);
    const base = { id, object: "chat.completion.chunk", created, model };
    frame({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
    if (behaviour?.kind === "refuse") {
      frame({ ...base, choices: [{ index: 0, delta: { refusal: "I can't help with that." }, finish_reason: null }] });
      frame({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "content_filter" }] });
      res.write("data: [DONE]\n\n");
      finished = true;
      stub.streams.completed++;
      res.end();
      return;
    }
    const pieces = text.match(/\S+\s*/g) ?? [text];
    for (let i = 0; i < pieces.length; i++) {
      if (res.destroyed) return;
      if (behaviour?.kind === "break" && i >= behaviour.afterChunks) {
        finished = true; // a server-side failure, not a client close
        await sleep(30); // let the chunks already written reach the client first
        res.destroy();
        return;
      }
      if (stub.chunkDelayMs > 0) await sleep(stub.chunkDelayMs);
      if (res.destroyed) return;
      frame({ ...base, choices: [{ index: 0, delta: { content: pieces[i] }, finish_reason: null }] });
    }
    frame({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
    if (body.stream_options?.include_usage) {
      frame({ ...base, choices: [], usage });
    }
    res.write("data: [DONE]\n\n");
    finished = true;
    stub.streams.completed++;
    res.end();
  }

  async function transcriptions(req: IncomingMessage, res: ServerResponse, body: Loose, behaviour: StubBehaviour | null): Promise<void> {
    const handled = await applyCommon(behaviour, req, res, () =>
      sendError(res, 400, "Your request was rejected as a result of our safety system.", "content_policy_violation"),
    );
    if (handled) return;
    if (!body.file) return sendError(res, 400, "file is required");
    if (!body.model) return sendError(res, 400, "model is required");
    const t = stub.transcription;
    if (body.response_format === "verbose_json") {
      sendJson(res, 200, { task: "transcribe", language: t.language, duration: t.duration, text: t.text, segments: [] });
    } else {
      sendJson(res, 200, { text: t.text });
    }
  }

  async function images(req: IncomingMessage, res: ServerResponse, body: Loose, behaviour: StubBehaviour | null): Promise<void> {
    const handled = await applyCommon(behaviour, req, res, () =>
      sendError(res, 400, "Your request was rejected as a result of our safety system.", "content_policy_violation"),
    );
    if (handled) return;
    if (!body.prompt) return sendError(res, 400, "prompt is required");
    const format = body.output_format ?? "png";
    const bytes = format === "jpeg" ? JPEG_1X1 : format === "webp" ? WEBP_1X1 : PNG_8X8;
    sendJson(res, 200, {
      created: Math.floor(Date.now() / 1000),
      data: [{ b64_json: bytes.toString("base64"), revised_prompt: `revised: ${body.prompt}` }],
      background: body.background ?? "opaque",
      output_format: format,
      quality: body.quality ?? "auto",
      size: body.size ?? "1024x1024",
      usage: { input_tokens: 10, output_tokens: 100, total_tokens: 110 },
    });
  }

  async function embeddings(req: IncomingMessage, res: ServerResponse, body: Loose, behaviour: StubBehaviour | null): Promise<void> {
    const handled = await applyCommon(behaviour, req, res, () =>
      sendError(res, 400, "rejected by content policy", "content_policy_violation"),
    );
    if (handled) return;
    const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
    const dim = options.embeddingDim ?? 8;
    const data = inputs.map((text, index) => {
      const h = createHash("sha256").update(String(text)).digest();
      const v = Array.from({ length: dim }, (_, i) => (h[i % h.length] - 127.5) / 127.5);
      const norm = Math.hypot(...v) || 1;
      const unit = v.map((x) => x / norm);
      if (body.encoding_format === "base64") {
        return { object: "embedding", index, embedding: Buffer.from(new Float32Array(unit).buffer).toString("base64") };
      }
      return { object: "embedding", index, embedding: unit };
    });
    sendJson(res, 200, {
      object: "list",
      data,
      model: body.model ?? "stub-embedding",
      usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
    });
  }

  const server: Server = createServer(async (req, res) => {
    try {
      const path = (req.url ?? "/").split("?")[0];
      if (req.method !== "POST") return sendError(res, 405, "method not allowed");
      const auth = req.headers.authorization ?? "";
      if (!auth.startsWith("Bearer ")) return sendError(res, 401, "Missing API key", "invalid_api_key");
      let endpoint: StubEndpoint;
      let body: Loose;
      if (path.endsWith("/audio/transcriptions")) {
        endpoint = "transcriptions";
        body = await readMultipart(req);
      } else {
        const raw = await readBody(req);
        try {
          body = raw.length ? JSON.parse(raw.toString("utf8")) : {};
        } catch {
          return sendError(res, 400, "invalid JSON body");
        }
        if (path.endsWith("/chat/completions")) endpoint = body.stream ? "stream" : "chat";
        else if (path.endsWith("/images/generations")) endpoint = "images";
        else if (path.endsWith("/embeddings")) endpoint = "embeddings";
        else return sendError(res, 404, `unknown path ${path}`);
      }
      if (record) stub.requests.push({ endpoint, path, headers: req.headers, body, at: Date.now() });
      const behaviour = behaviourFor(endpoint);
      if (endpoint === "chat" || endpoint === "stream") await chat(req, res, body, behaviour);
      else if (endpoint === "transcriptions") await transcriptions(req, res, body, behaviour);
      else if (endpoint === "images") await images(req, res, body, behaviour);
      else await embeddings(req, res, body, behaviour);
    } catch (error) {
      if (!res.headersSent) sendError(res, 500, `stub crashed: ${(error as Error).message}`);
      else res.destroy();
    }
  });
  server.keepAliveTimeout = options.keepAliveMs ?? 1000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  stub.port = port;
  stub.url = `http://127.0.0.1:${port}/v1`;
  return stub;
}
