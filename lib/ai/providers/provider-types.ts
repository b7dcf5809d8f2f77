/**
 * The AI provider contract every AI feature codes against (the adapters implement it; provider.ts
 * picks one). Two implementations:
 *   - "openai": the openai SDK against OPENAI_BASE_URL (OpenAI or any OpenAI-compatible server);
 *     lib/ai/providers/provider-openai.ts is the only file importing the SDK.
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
  /** The text goes to a client as it comes (the offline provider then paces its chunks like a model). */
  paced?: boolean;
}

/** Token counts as the provider reported them (cachedPromptTokens: of the prompt, served from its prompt cache). */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  cachedPromptTokens?: number;
}

/** Which route answered a call (lib/ai/providers/router.ts): its provider, and the catalog model it is priced by. */
export interface AnsweredBy {
  provider: string;
  model: string;
}

export interface ChatResult {
  text: string;
  model: string;
  /** As the provider reported it; null when it reported none. */
  usage: TokenUsage;
  /** False when the provider sent no usage (the counts above are then 0: the charge counts them itself). */
  usageReported?: boolean;
  route?: AnsweredBy;
}

/**
 * The parts of a streamed answer. `usage` may come several times (running counts: Anthropic's and
 * Gemini's streams report them as they go, thinking included); the last one counts. The router sends
 * `route` when an attempt starts (the route whose price applies), and `spent` for an attempt it gave
 * up on after the provider had the request (AI_ROUTE_TIMEOUT_MS), which the provider may still bill.
 */
export type StreamPart =
  /** `chunks`: how many streamed deltas this text gathers (one when absent); each is a token at least. */
  | { type: "text"; text: string; chunks?: number }
  | ({ type: "usage"; model: string } & TokenUsage)
  | ({ type: "route" } & AnsweredBy)
  | { type: "spent"; route: AnsweredBy; usage: TokenUsage | null };

export interface TranscribeRequest {
  /** The transcription model (default AI_TRANSCRIPTION_MODEL). */
  model?: string;
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
  route?: AnsweredBy;
  /** Attempts the router gave up on after the provider had the request (each may be billed). */
  spent?: AnsweredBy[];
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
  /** The quality and size the provider says it rendered (a request for "auto" learns them here). */
  quality?: string;
  size?: string;
  route?: AnsweredBy;
  spent?: AnsweredBy[];
}

export interface EmbeddingResult {
  model: string;
  vectors: number[][];
  /** Input tokens as the provider counted them (when it says). */
  promptTokens?: number;
  route?: AnsweredBy;
  spent?: AnsweredBy[];
}

export interface AiProvider {
  /** The provider's name in routes and metrics: "openai", "anthropic", "gemini", an AI_PROVIDERS name, "offline". */
  name: string;
  offline: boolean;
  /** The whole answer of streamChat, assembled (every chat call is streamed upstream: lib/ai/providers/assemble-chat.ts). */
  chat(req: ChatRequest): Promise<ChatResult>;
  /** Aborting req.signal aborts the upstream request. */
  streamChat(req: ChatRequest): AsyncIterable<StreamPart>;
  /** `model`: default AI_EMBEDDING_MODEL. */
  embed(texts: string[], signal?: AbortSignal, model?: string): Promise<EmbeddingResult>;
  transcribe(req: TranscribeRequest): Promise<TranscriptionResult>;
  generateImage(req: ImageRequest): Promise<ImageResult>;
}

/** Text prefix and model prefix that label every offline answer. */
export const OFFLINE_TEXT_PREFIX = "[offline]";
export const OFFLINE_MODEL_PREFIX = "offline-";
