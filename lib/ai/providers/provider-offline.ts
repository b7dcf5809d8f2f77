import { createHash } from "node:crypto";
import { AppError } from "@/lib/errors";
import { AiAbortError } from "./abort";
import { detectAudioFormat, measureAudio } from "../audio";
import { encodePng } from "./png";
import { assembleChat } from "./assemble-chat";
import { offlineEmbedding } from "./offline-embeddings";
import {
  OFFLINE_MODEL_PREFIX,
  OFFLINE_TEXT_PREFIX,
  type AiProvider,
  type ChatMessage,
  type ChatRequest,
  type ChatResult,
  type ImageRequest,
  type ImageResult,
  type StreamPart,
  type TranscribeRequest,
} from "./provider-types";
import { findModel } from "../catalog/models";
import type { AiSettings } from "../settings";

/**
 * The offline provider (no OPENAI_API_KEY outside production): deterministic answers derived from the
 * input, streamed in several chunks, a generated PNG, and a transcription stating the audio's real
 * duration. Every answer is labelled: text starts with "[offline]" and model ids start with "offline-".
 */
export const estimateTokens = (text: string) => (text.length === 0 ? 0 : Math.ceil(text.length / 4));

function messageText(m: ChatMessage): string {
  return typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "[image]")).join(" ");
}

function imageCount(messages: ChatMessage[]): number {
  return messages.reduce((n, m) => n + (typeof m.content === "string" ? 0 : m.content.filter((p) => p.type === "image").length), 0);
}

function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const WORD = /[\p{L}\p{N}]{3,}/gu;

/**
 * When a system message carries numbered context passages ("[1] Title\ntext", as retrieval-augmented
 * prompts do), the passage sentence sharing the most words with the question, cited by its number:
 * offline answers to questions about documents then point at the right passage.
 */
function bestPassageSentence(messages: ChatMessage[], question: string): string | null {
  const context = messages
    .filter((m) => m.role === "system")
    .map(messageText)
    .join("\n\n");
  const wanted = new Set((question.toLowerCase().match(WORD) ?? []).filter((w) => w.length > 3));
  if (wanted.size === 0) return null;
  let best: { score: number; text: string } | null = null;
  for (const passage of context.split(/\n\n(?=\[\d+\] )/)) {
    const head = /^\[(\d+)\] ([^\n]*)\n([\s\S]*)$/.exec(passage);
    if (!head) continue;
    for (const sentence of head[3].split(/(?<=[.!?])\s+|\n+/)) {
      const words = new Set(sentence.toLowerCase().match(WORD) ?? []);
      let score = 0;
      for (const w of wanted) if (words.has(w)) score++;
      if (score > 0 && (!best || score > best.score)) best = { score, text: `[${head[1]}] ${head[2]}: "${shorten(sentence, 240)}"` };
    }
  }
  return best ? `The closest passage in the context is ${best.text}.` : null;
}

/** The deterministic offline answer for a conversation. */
export function offlineAnswer(req: ChatRequest): string {
  const lastUser = [...req.messages].reverse().find((m) => m.role === "user") ?? req.messages[req.messages.length - 1];
  const input = lastUser ? messageText(lastUser) : "";
  const words = input.split(/\s+/).filter(Boolean).length;
  const digest = createHash("sha256").update(JSON.stringify(req.messages)).digest("hex").slice(0, 8);
  const images = imageCount(req.messages);
  const parts = [
    `${OFFLINE_TEXT_PREFIX} No AI provider is configured, so this is a deterministic offline answer.`,
    `You wrote ${words} word${words === 1 ? "" : "s"}: "${shorten(input, 160)}".`,
    bestPassageSentence(req.messages, input) ?? "",
    images ? `The conversation carries ${images} image${images === 1 ? "" : "s"}, which offline mode does not analyse.` : "",
    `Conversation of ${req.messages.length} message${req.messages.length === 1 ? "" : "s"}, fingerprint ${digest}.`,
  ];
  let text = parts.filter(Boolean).join(" ");
  if (req.maxTokens !== undefined && estimateTokens(text) > req.maxTokens)
    text = text.slice(0, Math.max(OFFLINE_TEXT_PREFIX.length, req.maxTokens * 4));
  return text;
}

/** Splits text into chunks of a few words (whitespace kept), at least 3 chunks when possible. */
export function chunkText(text: string): string[] {
  const tokens = text.match(/\S+\s*/g) ?? [text];
  const size = Math.max(1, Math.min(4, Math.floor(tokens.length / 3)));
  const chunks: string[] = [];
  for (let i = 0; i < tokens.length; i += size) chunks.push(tokens.slice(i, i + size).join(""));
  return chunks;
}

const abortError = () => new AiAbortError();

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

function promptTokens(req: ChatRequest): number {
  return estimateTokens(req.messages.map(messageText).join("\n"));
}

function sizeOf(size: ImageRequest["size"]): [number, number] {
  if (size === "1536x1024") return [1536, 1024];
  if (size === "1024x1536") return [1024, 1536];
  return [1024, 1024];
}

/** A deterministic picture of the prompt: a gradient between two colours derived from its hash. */
export function renderOfflineImage(prompt: string, size: ImageRequest["size"], transparent: boolean): Buffer {
  const h = createHash("sha256").update(prompt).digest();
  const [w, hgt] = sizeOf(size);
  const a = [h[0], h[1], h[2]];
  const b = [h[3], h[4], h[5]];
  const cx = w / 2;
  const cy = hgt / 2;
  const r2 = (Math.min(w, hgt) * 0.4) ** 2;
  return encodePng(w, hgt, transparent, (x, y, out) => {
    const t = x / (w - 1);
    const s = y / (hgt - 1);
    out[0] = Math.round(a[0] * (1 - t) + b[0] * t);
    out[1] = Math.round(a[1] * (1 - s) + b[1] * s);
    out[2] = Math.round((a[2] + b[2]) / 2);
    if (transparent) out[3] = (x - cx) ** 2 + (y - cy) ** 2 <= r2 ? 255 : 0;
  });
}

export function createOfflineProvider(settings: AiSettings): AiProvider {
  const model = (id: string) => `${OFFLINE_MODEL_PREFIX}${id}`;
  /** The answer in a few chunks, paced like a model when a client reads it as it comes. */
  function streamChat(req: ChatRequest): AsyncIterable<StreamPart> {
    return {
      async *[Symbol.asyncIterator]() {
        if (req.signal?.aborted) throw new AiAbortError(false);
        const text = offlineAnswer(req);
        for (const piece of chunkText(text)) {
          if (req.paced) await pause(15, req.signal);
          else if (req.signal?.aborted) throw abortError();
          yield { type: "text", text: piece };
        }
        yield {
          type: "usage",
          model: model(req.model ?? settings.chatModel),
          promptTokens: promptTokens(req),
          completionTokens: estimateTokens(text),
        };
      },
    };
  }
  return {
    name: "offline",
    offline: true,
    chat: (req: ChatRequest): Promise<ChatResult> => assembleChat(streamChat(req), model(req.model ?? settings.chatModel)),
    streamChat,

    /** Deterministic vectors of the words (labelled by an offline- model name), the catalog model's dimensions. */
    async embed(texts: string[], signal?: AbortSignal, id = settings.embeddingModel) {
      if (signal?.aborted) throw new AiAbortError(false);
      const dimensions = findModel(id)?.dimensions ?? 1536;
      return {
        model: model(id),
        vectors: texts.map((t) => offlineEmbedding(t, dimensions)),
        promptTokens: texts.reduce((n, t) => n + estimateTokens(t), 0),
      };
    },

    async transcribe(req: TranscribeRequest) {
      if (req.signal?.aborted) throw abortError();
      const format = detectAudioFormat(req.audio);
      const seconds = format ? (await measureAudio(format, req.audio)).measured : 0;
      const kb = Math.max(1, Math.round(req.audio.length / 1024));
      const label = (format ?? "audio").toUpperCase();
      const length = seconds > 0 ? `of ${seconds.toFixed(2)} seconds` : "in which no audio frames were found";
      return {
        text: `${OFFLINE_TEXT_PREFIX} Speech recognition is not available offline. Received a ${label} recording ${length}, ${kb} KB.`,
        language: req.language ?? "en",
        duration: Math.round(seconds * 1000) / 1000,
        model: model(req.model ?? settings.transcriptionModel),
      };
    },

    async generateImage(req: ImageRequest): Promise<ImageResult> {
      if (req.signal?.aborted) throw abortError();
      if (req.prompt.trim().length === 0) throw new AppError("validation_failed", "Invalid body: prompt must not be blank");
      const png = renderOfflineImage(req.prompt, req.size, req.background === "transparent");
      return {
        b64: png.toString("base64"),
        format: "png",
        revisedPrompt: `${OFFLINE_TEXT_PREFIX} ${req.prompt}`,
        model: model(req.model),
      };
    },
  };
}
