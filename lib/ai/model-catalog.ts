/**
 * The models this service can sell, with what each costs the operator upstream (list prices, USD)
 * and its limits. Pure data, safe on the edge runtime (the public configuration shows it). Operators
 * override any field or add models with AI_MODELS (lib/ai/models.ts); docs/API-NOTES.md "Pricing".
 *
 * Prices are the vendors' published list prices as of PRICES_AS_OF. Token prices are checked against
 * @pydantic/genai-prices (a maintained price database) by tests/unit/ai/model-catalog.test.ts, which
 * fails when that package (bumped on purpose) disagrees, so a price change is always a reviewed diff
 * here, never a silent change of what customers pay. Per-image and per-minute prices, maximum output
 * tokens and image-input token counts are not in that database: they come from the vendors' pricing
 * and model pages of the same date.
 */
export const PRICES_AS_OF = "2026-11-26";

export const IMAGE_QUALITIES = ["low", "medium", "high"] as const;
export const IMAGE_SIZES = ["1024x1024", "1536x1024", "1024x1536"] as const;
export type ImageQualityTier = (typeof IMAGE_QUALITIES)[number];
export type ImagePixelSize = (typeof IMAGE_SIZES)[number];

export type ModelKind = "chat" | "embedding" | "image" | "transcription";

/** USD per million tokens. */
export interface TokenPrices {
  input: number;
  /** Prompt tokens the provider served from its prompt cache (default: input). */
  cachedInput?: number;
  /** Chat and image models. */
  output?: number;
}

export interface ModelSpec {
  /** The name clients send (`model`) and the ledger records. */
  id: string;
  kind: ModelKind;
  /** The vendor whose list prices these are: "openai", "anthropic", "gemini" (routes: lib/ai/routes.ts). */
  vendor: string;
  /** Largest input the model accepts, in tokens (chat, embedding). */
  contextWindow?: number;
  /** Largest output one call may produce, in tokens (chat). */
  maxOutputTokens?: number;
  /** Embedding models: the length of their vectors (a request may ask for fewer, never more). */
  dimensions?: number;
  /** Token prices (chat, embedding; image models: the prompt). */
  perMillionTokens?: TokenPrices;
  /** Above this many prompt tokens, every token of the call costs `longContext` (tiered vendors). */
  longContext?: { above: number } & TokenPrices;
  /** Image generation: USD per image by quality and size. */
  perImage?: Record<ImageQualityTier, Record<ImagePixelSize, number>>;
  /** Transcription: USD per minute of audio. */
  perAudioMinute?: number;
  /**
   * Chat models reading images: the most tokens one input image can cost (its largest size). Images
   * in a request are counted at this worst case before the call; the provider's usage settles it.
   */
  imageInputTokens?: number;
  /**
   * How prompt tokens are counted before the call: "o200k" is the model's own tokenizer (OpenAI's
   * gpt-4o/4.1 family: exact); other vendors' tokenizers are not published, so their count is the
   * o200k count times this margin (a safe upper estimate; the provider's usage settles the charge).
   */
  tokenizerMargin?: number;
}

const gptImagePrices = (p: [number, number, number, number, number, number]): ModelSpec["perImage"] => ({
  low: { "1024x1024": p[0], "1536x1024": p[1], "1024x1536": p[1] },
  medium: { "1024x1024": p[2], "1536x1024": p[3], "1024x1536": p[3] },
  high: { "1024x1024": p[4], "1536x1024": p[5], "1024x1536": p[5] },
});

export const DEFAULT_MODELS: ModelSpec[] = [
  // OpenAI chat (platform.openai.com/docs/pricing, model pages). Image inputs at "high" detail: at
  // most 8 tiles of 512 px (85 + 8 x 170 = 1,445 tokens); gpt-4o-mini bills images at 2,833 +
  // 5,667 per tile; gpt-4.1-mini at up to 1,536 patches x 1.62.
  { id: "gpt-4o-mini", kind: "chat", vendor: "openai", contextWindow: 128_000, maxOutputTokens: 16_384, perMillionTokens: { input: 0.15, cachedInput: 0.075, output: 0.6 }, imageInputTokens: 48_169 },
  { id: "gpt-4o", kind: "chat", vendor: "openai", contextWindow: 128_000, maxOutputTokens: 16_384, perMillionTokens: { input: 2.5, cachedInput: 1.25, output: 10 }, imageInputTokens: 1_445 },
  { id: "gpt-4.1-mini", kind: "chat", vendor: "openai", contextWindow: 1_047_576, maxOutputTokens: 32_768, perMillionTokens: { input: 0.4, cachedInput: 0.1, output: 1.6 }, imageInputTokens: 2_489 },
  { id: "gpt-4.1", kind: "chat", vendor: "openai", contextWindow: 1_047_576, maxOutputTokens: 32_768, perMillionTokens: { input: 2, cachedInput: 0.5, output: 8 }, imageInputTokens: 1_445 },
  // Anthropic (docs.anthropic.com pricing and models overview): images cost about width x height /
  // 750 tokens, at most about 1,600 for an image Claude does not downscale further.
  { id: "claude-haiku-4-5", kind: "chat", vendor: "anthropic", contextWindow: 200_000, maxOutputTokens: 64_000, perMillionTokens: { input: 1, cachedInput: 0.1, output: 5 }, imageInputTokens: 1_600, tokenizerMargin: 1.35 },
  {
    id: "claude-sonnet-4-5",
    kind: "chat",
    vendor: "anthropic",
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    perMillionTokens: { input: 3, cachedInput: 0.3, output: 15 },
    // Prompts above 200k tokens (the 1M-token context, which an operator may enable with contextWindow) cost more.
    longContext: { above: 200_000, input: 6, cachedInput: 0.6, output: 22.5 },
    imageInputTokens: 1_600,
    tokenizerMargin: 1.35,
  },
  // Google (ai.google.dev pricing): an image is 258 tokens per 768 px tile, at most 6 tiles counted here.
  { id: "gemini-2.5-flash", kind: "chat", vendor: "gemini", contextWindow: 1_048_576, maxOutputTokens: 65_536, perMillionTokens: { input: 0.3, cachedInput: 0.03, output: 2.5 }, imageInputTokens: 1_548, tokenizerMargin: 1.35 },
  {
    id: "gemini-2.5-pro",
    kind: "chat",
    vendor: "gemini",
    contextWindow: 1_048_576,
    maxOutputTokens: 65_536,
    perMillionTokens: { input: 1.25, cachedInput: 0.125, output: 10 },
    longContext: { above: 200_000, input: 2.5, cachedInput: 0.25, output: 15 },
    imageInputTokens: 1_548,
    tokenizerMargin: 1.35,
  },
  // Embeddings.
  { id: "text-embedding-3-small", kind: "embedding", vendor: "openai", contextWindow: 8_191, dimensions: 1_536, perMillionTokens: { input: 0.02 } },
  { id: "text-embedding-3-large", kind: "embedding", vendor: "openai", contextWindow: 8_191, dimensions: 3_072, perMillionTokens: { input: 0.13 } },
  { id: "gemini-embedding-001", kind: "embedding", vendor: "gemini", contextWindow: 2_048, dimensions: 3_072, perMillionTokens: { input: 0.15 }, tokenizerMargin: 1.35 },
  // Image generation: per image by quality and size (low / medium / high; 1024x1024, then 1536x1024
  // and 1024x1536), plus the prompt's text tokens.
  { id: "gpt-image-1", kind: "image", vendor: "openai", perMillionTokens: { input: 5, cachedInput: 1.25 }, perImage: gptImagePrices([0.011, 0.016, 0.042, 0.063, 0.167, 0.25]) },
  { id: "gpt-image-1.5", kind: "image", vendor: "openai", perMillionTokens: { input: 5, cachedInput: 1.25 }, perImage: gptImagePrices([0.009, 0.013, 0.034, 0.05, 0.133, 0.2]) },
  { id: "gpt-image-1-mini", kind: "image", vendor: "openai", perMillionTokens: { input: 2, cachedInput: 0.2 }, perImage: gptImagePrices([0.005, 0.006, 0.011, 0.015, 0.036, 0.052]) },
  // Speech to text: per minute of audio.
  { id: "whisper-1", kind: "transcription", vendor: "openai", perAudioMinute: 0.006 },
  { id: "gpt-4o-transcribe", kind: "transcription", vendor: "openai", perAudioMinute: 0.006 },
  { id: "gpt-4o-mini-transcribe", kind: "transcription", vendor: "openai", perAudioMinute: 0.003 },
];
