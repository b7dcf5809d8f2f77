import { env } from "@/lib/config/env";
import { AppError } from "@/lib/errors";
import { aiSettings, type AiSettings } from "./settings";
import { createOfflineProvider } from "./provider-offline";
import { createOpenAiProvider } from "./provider-openai";

/**
 * The AI provider contract every AI feature codes against. Two implementations:
 *   - "openai": the openai SDK against OPENAI_BASE_URL (OpenAI or any OpenAI-compatible server);
 *     lib/ai/provider-openai.ts is the only file importing the SDK.
 *   - "offline": deterministic answers derived from the input, labelled offline in every response;
 *     used when OPENAI_API_KEY is unset outside production and refused in production.
 */
export type ContentPart = { type: "text"; text: string } | { type: "image"; image: string /* data URL */ };

export interface ChatMessage {
  role: "system" | "user" | "assistant" | "function" | "tool";
  content: string | ContentPart[];
  name?: string;
}

export interface ChatRequest {
  /** Provider model id; defaults to AI_CHAT_MODEL. */
  model?: string;
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
  /** Overall timeout in ms (default AI_TIMEOUT_MS). */
  timeoutMs?: number;
}

export interface ChatResult {
  text: string;
  model: string;
  usage: { promptTokens: number; completionTokens: number };
}

export type StreamPart =
  | { type: "text"; text: string }
  | { type: "usage"; model: string; promptTokens: number; completionTokens: number };

export interface TranscribeRequest {
  audio: Uint8Array;
  filename: string;
  mimeType: string;
  /** Optional ISO 639-1 hint. */
  language?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface TranscriptionResult {
  text: string;
  /** ISO 639-1 code ("en"), or "und" when the provider did not say. */
  language: string;
  /** Seconds. */
  duration: number;
  model: string;
}

export type ImageSize = "1024x1024" | "1536x1024" | "1024x1536" | "auto";
export type ImageQuality = "low" | "medium" | "high" | "auto";
export type ImageFormat = "png" | "jpeg" | "webp";
export type ImageBackground = "opaque" | "transparent";

export interface ImageRequest {
  prompt: string;
  /** Provider model id (already mapped from the public name by the caller). */
  model: string;
  size: ImageSize;
  quality: ImageQuality;
  outputFormat: ImageFormat;
  background: ImageBackground;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface ImageResult {
  /** Base64 image bytes. */
  b64: string;
  /** Format of the bytes actually returned (the offline provider always renders PNG). */
  format: ImageFormat;
  revisedPrompt: string;
  model: string;
}

export interface AiProvider {
  /** "openai" (any OpenAI-compatible server) | "offline". */
  name: string;
  offline: boolean;
  chat(req: ChatRequest): Promise<ChatResult>;
  /** Aborting req.signal aborts the upstream request. */
  streamChat(req: ChatRequest): AsyncIterable<StreamPart>;
  /** null = no embeddings (offline). */
  embed(texts: string[], signal?: AbortSignal): Promise<{ model: string; vectors: number[][] } | null>;
  transcribe(req: TranscribeRequest): Promise<TranscriptionResult>;
  generateImage(req: ImageRequest): Promise<ImageResult>;
}

/** Text prefix and model prefix that label every offline answer. */
export const OFFLINE_TEXT_PREFIX = "[offline]";
export const OFFLINE_MODEL_PREFIX = "offline-";

let cached: { key: string; provider: AiProvider } | undefined;

/**
 * The configured provider. Throws AppError("provider_not_configured") in production without
 * OPENAI_API_KEY: callers resolve the provider BEFORE reserving credits, so nothing is charged.
 */
export function aiProvider(): AiProvider {
  const e = env();
  const settings = aiSettings();
  if (!e.OPENAI_API_KEY && e.isProduction) {
    throw new AppError("provider_not_configured", "AI provider is not configured: set OPENAI_API_KEY");
  }
  const key = providerKey(settings, e.OPENAI_API_KEY);
  if (cached?.key === key) return cached.provider;
  const provider = e.OPENAI_API_KEY
    ? createOpenAiProvider({ apiKey: e.OPENAI_API_KEY, baseURL: e.OPENAI_BASE_URL, settings })
    : createOfflineProvider(settings);
  cached = { key, provider };
  return provider;
}

function providerKey(settings: AiSettings, apiKey: string | undefined): string {
  return JSON.stringify([apiKey ?? "", env().OPENAI_BASE_URL ?? "", settings]);
}
