/** The tokenizer a vendor bills by (lib/ai/pricing/tokens.ts counts with it). */
export type Tokenizer = "o200k" | "cl100k" | "bytes";

/** How a vendor counts an input image in prompt tokens (lib/ai/pricing/image-tokens.ts applies it). */
export type ImageTokenRule =
  | { rule: "openai-tiles"; base: number; perTile: number }
  | { rule: "openai-patches"; multiplier: number; maxPatches: number }
  | { rule: "anthropic" }
  | { rule: "gemini-tiles"; perTile: number }
  | { rule: "fixed"; tokens: number };

/**
 * The models this service can sell, with what each costs the operator upstream (list prices, USD)
 * and its limits. Pure data, safe on the edge runtime (the public configuration shows it). Operators
 * override any field or add models with AI_MODELS (lib/ai/catalog/models.ts); docs/API-NOTES.md "Pricing".
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
  /** The vendor whose list prices these are: "openai", "anthropic", "gemini" (routes: lib/ai/providers/routes.ts). */
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
   * Chat models reading images: how the vendor bills an input image, from its real dimensions
   * (lib/ai/pricing/image-tokens.ts). A chat model without a rule does not take images.
   */
  imageTokens?: ImageTokenRule;
  /**
   * The tokenizer the vendor bills by (lib/ai/pricing/tokens.ts): "o200k" and "cl100k" are exact for
   * OpenAI's models; "bytes" (the UTF-8 length, never less than the tokens of any byte-level
   * tokenizer) for vendors whose tokenizer is not published. The provider's reported usage settles
   * the charge; this bounds the quote before the call.
   */
  tokenizer: Tokenizer;
  /**
   * The model may think before (or between) the text it sends, billed as output but not streamed:
   * a call cut before any usage was reported is charged its whole output cap.
   */
  hiddenReasoning?: boolean;
}

const gptImagePrices = (p: [number, number, number, number, number, number]): ModelSpec["perImage"] => ({
  low: { "1024x1024": p[0], "1536x1024": p[1], "1024x1536": p[1] },
  medium: { "1024x1024": p[2], "1536x1024": p[3], "1024x1536": p[3] },
  high: { "1024x1024": p[4], "1536x1024": p[5], "1024x1536": p[5] },
});

export const DEFAULT_MODELS: ModelSpec[] = [
  // OpenAI chat (platform.openai.com/docs/pricing, model pages, "Images and vision"): images at
  // "high" detail, tiles of 512 px (gpt-4o and gpt-4.1: 85 + 170 per tile; gpt-4o-mini: 2,833 +
  // 5,667 per tile); gpt-4.1-mini: 32-px patches (at most 1,536) x 1.62.
  {
    id: "gpt-4o-mini",
    kind: "chat",
    vendor: "openai",
    contextWindow: 128_000,
    maxOutputTokens: 16_384,
    perMillionTokens: { input: 0.15, cachedInput: 0.075, output: 0.6 },
    imageTokens: { rule: "openai-tiles", base: 2_833, perTile: 5_667 },
    tokenizer: "o200k",
  },
  {
    id: "gpt-4o",
    kind: "chat",
    vendor: "openai",
    contextWindow: 128_000,
    maxOutputTokens: 16_384,
    perMillionTokens: { input: 2.5, cachedInput: 1.25, output: 10 },
    imageTokens: { rule: "openai-tiles", base: 85, perTile: 170 },
    tokenizer: "o200k",
  },
  {
    id: "gpt-4.1-mini",
    kind: "chat",
    vendor: "openai",
    contextWindow: 1_047_576,
    maxOutputTokens: 32_768,
    perMillionTokens: { input: 0.4, cachedInput: 0.1, output: 1.6 },
    imageTokens: { rule: "openai-patches", multiplier: 1.62, maxPatches: 1_536 },
    tokenizer: "o200k",
  },
  {
    id: "gpt-4.1",
    kind: "chat",
    vendor: "openai",
    contextWindow: 1_047_576,
    maxOutputTokens: 32_768,
    perMillionTokens: { input: 2, cachedInput: 0.5, output: 8 },
    imageTokens: { rule: "openai-tiles", base: 85, perTile: 170 },
    tokenizer: "o200k",
  },
  // Anthropic (docs.anthropic.com pricing and models overview; "Vision"): an image costs width x
  // height / 750 tokens after its longest edge is scaled to 1,568 px (at most about 1,600). Claude's
  // tokenizer is not published: prompts are bounded by their UTF-8 length.
  {
    id: "claude-haiku-4-5",
    kind: "chat",
    vendor: "anthropic",
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    perMillionTokens: { input: 1, cachedInput: 0.1, output: 5 },
    imageTokens: { rule: "anthropic" },
    tokenizer: "bytes",
  },
  {
    id: "claude-sonnet-4-5",
    kind: "chat",
    vendor: "anthropic",
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    perMillionTokens: { input: 3, cachedInput: 0.3, output: 15 },
    // Prompts above 200k tokens (the 1M-token context, which an operator may enable with contextWindow) cost more.
    longContext: { above: 200_000, input: 6, cachedInput: 0.6, output: 22.5 },
    imageTokens: { rule: "anthropic" },
    tokenizer: "bytes",
  },
  // Google (ai.google.dev pricing, "Image understanding"): an image is 258 tokens when both sides
  // are at most 384 px, else 258 per 768-px tile. Gemini 2.5 thinks before it answers (billed as
  // output, streamed as usage only); its tokenizer is not published.
  {
    id: "gemini-2.5-flash",
    kind: "chat",
    vendor: "gemini",
    contextWindow: 1_048_576,
    maxOutputTokens: 65_536,
    perMillionTokens: { input: 0.3, cachedInput: 0.03, output: 2.5 },
    imageTokens: { rule: "gemini-tiles", perTile: 258 },
    tokenizer: "bytes",
    hiddenReasoning: true,
  },
  {
    id: "gemini-2.5-pro",
    kind: "chat",
    vendor: "gemini",
    contextWindow: 1_048_576,
    maxOutputTokens: 65_536,
    perMillionTokens: { input: 1.25, cachedInput: 0.125, output: 10 },
    longContext: { above: 200_000, input: 2.5, cachedInput: 0.25, output: 15 },
    imageTokens: { rule: "gemini-tiles", perTile: 258 },
    tokenizer: "bytes",
    hiddenReasoning: true,
  },
  // Embeddings: text-embedding-3 bills by cl100k (not o200k: non-Latin text counts many times more).
  {
    id: "text-embedding-3-small",
    kind: "embedding",
    vendor: "openai",
    contextWindow: 8_191,
    dimensions: 1_536,
    perMillionTokens: { input: 0.02 },
    tokenizer: "cl100k",
  },
  {
    id: "text-embedding-3-large",
    kind: "embedding",
    vendor: "openai",
    contextWindow: 8_191,
    dimensions: 3_072,
    perMillionTokens: { input: 0.13 },
    tokenizer: "cl100k",
  },
  {
    id: "gemini-embedding-001",
    kind: "embedding",
    vendor: "gemini",
    contextWindow: 2_048,
    dimensions: 3_072,
    perMillionTokens: { input: 0.15 },
    tokenizer: "bytes",
  },
  // Image generation: per image by quality and size (low / medium / high; 1024x1024, then 1536x1024
  // and 1024x1536), plus the prompt's text tokens.
  {
    id: "gpt-image-1",
    kind: "image",
    vendor: "openai",
    perMillionTokens: { input: 5, cachedInput: 1.25 },
    perImage: gptImagePrices([0.011, 0.016, 0.042, 0.063, 0.167, 0.25]),
    tokenizer: "o200k",
  },
  {
    id: "gpt-image-1.5",
    kind: "image",
    vendor: "openai",
    perMillionTokens: { input: 5, cachedInput: 1.25 },
    perImage: gptImagePrices([0.009, 0.013, 0.034, 0.05, 0.133, 0.2]),
    tokenizer: "o200k",
  },
  {
    id: "gpt-image-1-mini",
    kind: "image",
    vendor: "openai",
    perMillionTokens: { input: 2, cachedInput: 0.2 },
    perImage: gptImagePrices([0.005, 0.006, 0.011, 0.015, 0.036, 0.052]),
    tokenizer: "o200k",
  },
  // Speech to text: per minute of audio.
  { id: "whisper-1", kind: "transcription", vendor: "openai", perAudioMinute: 0.006, tokenizer: "o200k" },
  { id: "gpt-4o-transcribe", kind: "transcription", vendor: "openai", perAudioMinute: 0.006, tokenizer: "o200k" },
  { id: "gpt-4o-mini-transcribe", kind: "transcription", vendor: "openai", perAudioMinute: 0.003, tokenizer: "o200k" },
];
