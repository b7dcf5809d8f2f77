import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import busboy from "busboy";
import { countTokens as o200k } from "gpt-tokenizer";
import { countTokens as cl100k } from "gpt-tokenizer/encoding/cl100k_base";

/**
 * One local server speaking three vendors' wire protocols (OpenAI-compatible, Anthropic Messages,
 * Gemini) that BILLS the way the vendors do, for the hostile-client suite (tests/e2e/meter.test.ts):
 *   - output is produced token by token at a pace and billed until the connection closes (a client
 *     that hangs up, or a gateway that gives up, still pays for what was produced);
 *   - a thinking model thinks first (billed as output, not streamed; Gemini reports it in every
 *     chunk's running usage, an OpenAI reasoning model only in the final usage);
 *   - prompts are counted with each vendor's own tokenizer: o200k for gpt-4o/4.1, cl100k for
 *     text-embedding-3, and for Claude and Gemini a tokenizer of their own that counts non-Latin
 *     text byte by byte (as an unfamiliar script costs in a byte-level BPE);
 *   - images by their real dimensions (PNG's IHDR), per vendor rule;
 *   - audio by its decoded length: the length the test registered for the file (it made it), else
 *     a WAV's samples;
 *   - usage can be omitted (a provider that sends none), errors injected before any output.
 * It never reads the product's code: its counts are its own. `bills` lists what each request cost.
 */
export type Vendor = "openai" | "anthropic" | "gemini";

export interface Bill {
  vendor: Vendor;
  kind: "chat" | "embeddings" | "transcription" | "image";
  model: string;
  promptTokens: number;
  /** Output tokens produced (text), billed until the connection closed. */
  outputTokens: number;
  /** Thinking tokens produced (billed as output). */
  thinkingTokens: number;
  audioSeconds: number;
  images: number;
  /** The client (the gateway) closed the connection before the answer ended. */
  cut: boolean;
  /** The answer is over (completed or cut): the bill is final. */
  done: boolean;
}

/** How the next chat answers go (queued per vendor; the default otherwise). */
export interface ChatPlan {
  /** Output tokens to produce (one streamed chunk each). Default 20. */
  tokens?: number;
  /** Delay before each produced token (thinking or text), ms. Default 0. */
  paceMs?: number;
  /** Thinking tokens produced before the first text. */
  thinking?: number;
  /** Delay per thinking token, ms (default paceMs). */
  thinkPaceMs?: number;
  /** Send no usage at all. */
  omitUsage?: boolean;
  /** Answer this error status before producing anything (not billed). */
  errorStatus?: number;
  retryAfter?: string;
}

export interface BillingStub {
  url: string;
  bills: Bill[];
  /** Plans for the next chat answers of a vendor, in order. */
  plan(vendor: Vendor, ...plans: ChatPlan[]): void;
  /** The decoded length of an audio file the test made (by its bytes). */
  registerAudio(bytes: Uint8Array, seconds: number): void;
  /** Fail the next embeddings requests of a vendor with this status (not billed). */
  failEmbeddings(vendor: Vendor, status: number, times?: number): void;
  /** Resolves once every bill is final. */
  settled(ms?: number): Promise<void>;
  reset(): void;
  close(): Promise<void>;
}

type Loose = any;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Words that are one token each in every tokenizer here (an answer's tokens, one streamed chunk each). */
const WORDS = [" the", " a", " of", " to", " and", " in", " is", " it", " that", " for", " on", " with", " as", " at", " by", " this"];

/** Claude's and Gemini's tokenizers are not published: this stand-in counts Latin text with cl100k and any other script byte by byte. */
function foreignTokens(text: string): number {
  let latin = "";
  let other = 0;
  for (const ch of text) {
    if (ch.charCodeAt(0) < 0x250) latin += ch;
    else {
      other += Buffer.byteLength(ch, "utf8");
      latin += " ";
    }
  }
  return cl100k(latin) + other;
}

function pngSize(dataUrlOrBase64: string): { w: number; h: number } {
  const b64 = dataUrlOrBase64.includes(",") ? dataUrlOrBase64.split(",")[1] : dataUrlOrBase64;
  const head = Buffer.from(b64.slice(0, 44), "base64");
  return head.subarray(12, 16).toString("latin1") === "IHDR"
    ? { w: head.readUInt32BE(16), h: head.readUInt32BE(20) }
    : { w: 1024, h: 1024 };
}

function imageTokens(vendor: Vendor, model: string, size: { w: number; h: number }): number {
  let { w, h } = size;
  if (vendor === "gemini") return w <= 384 && h <= 384 ? 258 : 258 * Math.ceil(w / 768) * Math.ceil(h / 768);
  if (vendor === "anthropic") {
    const s = Math.min(1, 1568 / Math.max(w, h));
    return Math.min(1600, Math.ceil((w * s * h * s) / 750));
  }
  if (w > 2048 || h > 2048) [w, h] = [(w * 2048) / Math.max(w, h), (h * 2048) / Math.max(w, h)];
  if (Math.min(w, h) > 768) [w, h] = [(w * 768) / Math.min(w, h), (h * 768) / Math.min(w, h)];
  const tiles = Math.ceil(w / 512) * Math.ceil(h / 512);
  return model === "gpt-4o-mini" ? 2833 + 5667 * tiles : 85 + 170 * tiles;
}

/** What the vendor bills for the prompt of a chat request, in its own words. */
function chatPrompt(vendor: Vendor, model: string, body: Loose): number {
  const count = vendor === "openai" ? o200k : foreignTokens;
  let tokens = 3;
  const parts = (content: Loose): Loose[] => (typeof content === "string" ? [{ text: content }] : Array.isArray(content) ? content : []);
  if (vendor === "gemini") {
    for (const p of body.systemInstruction?.parts ?? []) tokens += count(p.text ?? "");
    for (const c of body.contents ?? []) {
      tokens += 4;
      for (const p of c.parts ?? [])
        tokens += p.text !== undefined ? count(p.text) : p.inlineData ? imageTokens(vendor, model, pngSize(p.inlineData.data)) : 0;
    }
    return tokens;
  }
  if (vendor === "anthropic" && body.system) tokens += count(typeof body.system === "string" ? body.system : JSON.stringify(body.system));
  for (const m of body.messages ?? []) {
    tokens += 4;
    for (const p of parts(m.content)) {
      if (p.text !== undefined) tokens += count(p.text);
      else if (p.type === "image_url") tokens += imageTokens(vendor, model, pngSize(p.image_url.url));
      else if (p.type === "image") tokens += imageTokens(vendor, model, pngSize(p.source.data));
    }
  }
  return tokens;
}

function wavSeconds(b: Buffer): number {
  if (b.subarray(0, 4).toString("latin1") !== "RIFF") return 0;
  let at = 12;
  let fmt: { ch: number; rate: number; bits: number } | null = null;
  while (at + 8 <= b.length) {
    const id = b.subarray(at, at + 4).toString("latin1");
    const size = b.readUInt32LE(at + 4);
    if (id === "fmt ") fmt = { ch: b.readUInt16LE(at + 10), rate: b.readUInt32LE(at + 12), bits: b.readUInt16LE(at + 22) };
    if (id === "data" && fmt) return (b.length - at - 8) / (fmt.ch * (fmt.bits / 8) * fmt.rate);
    at += 8 + size + (size & 1);
  }
  return 0;
}

const readBody = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
};

export async function startBillingStub(): Promise<BillingStub> {
  const plans: Record<Vendor, ChatPlan[]> = { openai: [], anthropic: [], gemini: [] };
  const audio = new Map<string, number>();
  const embedFailures: Record<Vendor, number[]> = { openai: [], anthropic: [], gemini: [] };
  const stub: BillingStub = {
    url: "",
    bills: [],
    plan: (vendor, ...p) => void plans[vendor].push(...p),
    registerAudio: (bytes, seconds) => void audio.set(createHash("sha256").update(bytes).digest("hex"), seconds),
    failEmbeddings: (vendor, status, times = 1) => void embedFailures[vendor].push(...Array(times).fill(status)),
    async settled(ms = 5000) {
      const until = Date.now() + ms;
      while (stub.bills.some((b) => !b.done) && Date.now() < until) await sleep(10);
    },
    reset() {
      stub.bills.length = 0;
      for (const v of Object.keys(plans) as Vendor[]) {
        plans[v].length = 0;
        embedFailures[v].length = 0;
      }
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };

  const bill = (b: Omit<Bill, "outputTokens" | "thinkingTokens" | "audioSeconds" | "images" | "cut" | "done"> & Partial<Bill>): Bill => {
    const full: Bill = { outputTokens: 0, thinkingTokens: 0, audioSeconds: 0, images: 0, cut: false, done: false, ...b };
    stub.bills.push(full);
    return full;
  };

  /**
   * Produces a chat answer token by token, billing each as it is produced (thinking first), until the
   * end, the request's output cap (thinking included, as vendors count it) or the connection closes.
   */
  async function produce(
    vendor: Vendor,
    res: ServerResponse,
    b: Bill,
    plan: ChatPlan,
    cap: number,
    send: {
      start?: () => void;
      thinking?: (thought: number) => void;
      token: (text: string, index: number) => void;
      end: () => void;
    },
  ): Promise<void> {
    let closed = false;
    res.on("close", () => {
      closed = !res.writableFinished;
      if (closed) b.cut = true;
      b.done = true;
    });
    send.start?.();
    const thinkPace = plan.thinkPaceMs ?? plan.paceMs;
    for (let i = 0; i < Math.min(plan.thinking ?? 0, cap); i++) {
      if (thinkPace && i % 8 === 0) await sleep(thinkPace * 8);
      if (closed || res.destroyed) return;
      b.thinkingTokens++;
      send.thinking?.(b.thinkingTokens);
    }
    const tokens = Math.min(plan.tokens ?? 20, cap - b.thinkingTokens);
    for (let i = 0; i < tokens; i++) {
      if (plan.paceMs && i % 8 === 0) await sleep(plan.paceMs * 8);
      if (closed || res.destroyed) return;
      b.outputTokens++;
      send.token(WORDS[i % WORDS.length], i);
    }
    if (closed || res.destroyed) return;
    send.end();
    res.end();
  }

  async function openaiChat(req: IncomingMessage, res: ServerResponse, body: Loose): Promise<void> {
    const plan = plans.openai.shift() ?? {};
    if (plan.errorStatus)
      return json(
        res,
        plan.errorStatus,
        { error: { message: `billing stub ${plan.errorStatus}`, type: "server_error", code: null } },
        plan.retryAfter ? { "retry-after": plan.retryAfter } : {},
      );
    const model = body.model;
    const b = bill({ vendor: "openai", kind: "chat", model, promptTokens: chatPrompt("openai", model, body) });
    const usage = () => ({
      prompt_tokens: b.promptTokens,
      completion_tokens: b.outputTokens + b.thinkingTokens,
      total_tokens: b.promptTokens + b.outputTokens + b.thinkingTokens,
    });
    if (!body.stream) {
      let text = "";
      await produce("openai", res, b, plan, body.max_completion_tokens ?? body.max_tokens ?? Infinity, {
        token: (t) => (text += t),
        end: () =>
          json(res, 200, {
            id: "x",
            object: "chat.completion",
            model,
            choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
            ...(plan.omitUsage ? {} : { usage: usage() }),
          }),
      });
      return;
    }
    const frame = (p: unknown) => res.write(`data: ${JSON.stringify(p)}\n\n`);
    await produce("openai", res, b, plan, body.max_completion_tokens ?? body.max_tokens ?? Infinity, {
      start: () => res.writeHead(200, { "content-type": "text/event-stream" }),
      token: (t) =>
        frame({ id: "x", object: "chat.completion.chunk", model, choices: [{ index: 0, delta: { content: t }, finish_reason: null }] }),
      end: () => {
        frame({ id: "x", object: "chat.completion.chunk", model, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
        if (body.stream_options?.include_usage && !plan.omitUsage)
          frame({ id: "x", object: "chat.completion.chunk", model, choices: [], usage: usage() });
        res.write("data: [DONE]\n\n");
      },
    });
  }

  async function anthropicMessages(req: IncomingMessage, res: ServerResponse, body: Loose): Promise<void> {
    const plan = plans.anthropic.shift() ?? {};
    if (plan.errorStatus) {
      return json(
        res,
        plan.errorStatus,
        { type: "error", error: { type: plan.errorStatus === 529 ? "overloaded_error" : "api_error", message: "billing stub" } },
        plan.retryAfter ? { "retry-after": plan.retryAfter } : {},
      );
    }
    const model = body.model;
    const b = bill({ vendor: "anthropic", kind: "chat", model, promptTokens: chatPrompt("anthropic", model, body) });
    const event = (name: string, data: unknown) => res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
    let text = "";
    await produce("anthropic", res, b, plan, body.max_tokens ?? Infinity, {
      start: () => {
        if (!body.stream) return;
        res.writeHead(200, { "content-type": "text/event-stream" });
        event("message_start", {
          type: "message_start",
          message: {
            id: "msg",
            type: "message",
            role: "assistant",
            model,
            content: [],
            usage: { input_tokens: b.promptTokens, output_tokens: 1 },
          },
        });
        event("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
      },
      token: (t) =>
        body.stream
          ? event("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: t } })
          : (text += t),
      end: () => {
        const usage = { input_tokens: b.promptTokens, output_tokens: b.outputTokens + b.thinkingTokens };
        if (!body.stream)
          return json(res, 200, {
            id: "msg",
            type: "message",
            role: "assistant",
            model,
            content: [{ type: "text", text }],
            stop_reason: "end_turn",
            usage,
          });
        event("content_block_stop", { type: "content_block_stop", index: 0 });
        event("message_delta", {
          type: "message_delta",
          delta: { stop_reason: "end_turn" },
          usage: { output_tokens: usage.output_tokens },
        });
        event("message_stop", { type: "message_stop" });
      },
    });
  }

  async function geminiGenerate(req: IncomingMessage, res: ServerResponse, body: Loose, model: string, stream: boolean): Promise<void> {
    const plan = plans.gemini.shift() ?? {};
    if (plan.errorStatus)
      return json(res, plan.errorStatus, { error: { code: plan.errorStatus, message: "billing stub", status: "UNAVAILABLE" } });
    const b = bill({ vendor: "gemini", kind: "chat", model, promptTokens: chatPrompt("gemini", model, body) });
    const usage = () => ({
      promptTokenCount: b.promptTokens,
      candidatesTokenCount: b.outputTokens,
      thoughtsTokenCount: b.thinkingTokens,
      totalTokenCount: b.promptTokens + b.outputTokens + b.thinkingTokens,
    });
    const chunk = (t: string) => ({
      candidates: [{ content: { role: "model", parts: [{ text: t }] }, index: 0 }],
      ...(plan.omitUsage ? {} : { usageMetadata: usage() }),
      modelVersion: model,
    });
    let text = "";
    await produce("gemini", res, b, plan, body.generationConfig?.maxOutputTokens ?? Infinity, {
      start: () => stream && res.writeHead(200, { "content-type": "text/event-stream" }),
      token: (t) => (stream ? res.write(`data: ${JSON.stringify(chunk(t))}\r\n\r\n`) : (text += t)),
      end: () =>
        stream
          ? undefined
          : json(res, 200, {
              ...chunk(text),
              candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }],
            }),
    });
  }

  async function embeddings(
    vendor: Vendor,
    res: ServerResponse,
    model: string,
    texts: string[],
    send: (vectors: number[][], tokens: number) => void,
  ): Promise<void> {
    const failure = embedFailures[vendor].shift();
    if (failure) return json(res, failure, { error: { message: "billing stub embeddings down", code: failure } });
    const count = vendor === "openai" ? cl100k : foreignTokens;
    const tokens = texts.reduce((n, t) => n + count(t), 0);
    bill({ vendor, kind: "embeddings", model, promptTokens: tokens, done: true });
    send(
      texts.map((t) => Array.from({ length: 8 }, (_, i) => createHash("sha256").update(`${t}${i}`).digest()[0] / 255)),
      tokens,
    );
  }

  async function transcription(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const fields: Record<string, string> = {};
    let file = Buffer.alloc(0);
    await new Promise<void>((resolve, reject) => {
      const bb = busboy({ headers: req.headers });
      bb.on("field", (k, v) => (fields[k] = v));
      bb.on("file", (_n, s) => {
        const parts: Buffer[] = [];
        s.on("data", (c: Buffer) => parts.push(c));
        s.on("end", () => (file = Buffer.concat(parts)));
      });
      bb.on("close", () => resolve());
      bb.on("error", reject);
      req.pipe(bb);
    });
    const seconds = audio.get(createHash("sha256").update(file).digest("hex")) ?? wavSeconds(file);
    bill({ vendor: "openai", kind: "transcription", model: fields.model, promptTokens: 0, audioSeconds: seconds, done: true });
    json(res, 200, { task: "transcribe", language: "english", duration: seconds, text: "billed transcription" });
  }

  const server: Server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (url.pathname.endsWith("/audio/transcriptions")) return await transcription(req, res);
      const body = JSON.parse((await readBody(req)).toString("utf8") || "{}") as Loose;
      if (url.pathname === "/openai/v1/chat/completions") return await openaiChat(req, res, body);
      if (url.pathname === "/openai/v1/embeddings") {
        const texts: string[] = Array.isArray(body.input) ? body.input : [body.input];
        return await embeddings("openai", res, body.model, texts, (vectors, tokens) =>
          json(res, 200, {
            object: "list",
            model: body.model,
            data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
            usage: { prompt_tokens: tokens, total_tokens: tokens },
          }),
        );
      }
      if (url.pathname === "/anthropic/v1/messages") return await anthropicMessages(req, res, body);
      const g = /^\/gemini\/v1(?:beta)?\/models\/([^:]+):(generateContent|streamGenerateContent|batchEmbedContents|embedContent)$/.exec(
        url.pathname,
      );
      if (g) {
        if (g[2].includes("mbed")) {
          const texts: string[] =
            g[2] === "embedContent"
              ? [body.content?.parts?.[0]?.text ?? ""]
              : (body.requests ?? []).map((r: Loose) => r.content?.parts?.[0]?.text ?? "");
          return await embeddings("gemini", res, g[1], texts, (vectors) =>
            json(
              res,
              200,
              g[2] === "embedContent" ? { embedding: { values: vectors[0] } } : { embeddings: vectors.map((values) => ({ values })) },
            ),
          );
        }
        return await geminiGenerate(req, res, body, g[1], g[2] === "streamGenerateContent");
      }
      json(res, 404, { error: { message: `no route ${url.pathname}` } });
    } catch (error) {
      if (!res.headersSent) json(res, 500, { error: { message: `billing stub crashed: ${(error as Error).message}` } });
      else res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return stub;
}
