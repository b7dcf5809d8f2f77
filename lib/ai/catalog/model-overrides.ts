import { z } from "zod";

/**
 * The shape of AI_MODELS: per model id, fields that replace the built-in catalog's (lib/ai/catalog/model-catalog.ts)
 * or describe a new model. Prices are USD (per million tokens, per image, per audio minute). Checked
 * at start-up with every other setting; a new model must also say its kind, vendor and prices
 * (lib/ai/catalog/models.ts checks completeness). Edge-safe.
 */
const usd = z.number().nonnegative().max(1_000_000);
const tokenPrices = z.strictObject({ input: usd, cachedInput: usd.optional(), output: usd.optional() });
const byQuality = z.strictObject({ "1024x1024": usd, "1536x1024": usd, "1024x1536": usd });

export const modelOverrideSchema = z.strictObject({
  kind: z.enum(["chat", "embedding", "image", "transcription"]).optional(),
  vendor: z.string().min(1).max(50).optional(),
  contextWindow: z.number().int().positive().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  dimensions: z.number().int().positive().max(65_536).optional(),
  perMillionTokens: tokenPrices.optional(),
  longContext: tokenPrices.extend({ above: z.number().int().positive() }).optional(),
  perImage: z.strictObject({ low: byQuality, medium: byQuality, high: byQuality }).optional(),
  perAudioMinute: usd.optional(),
  /** How the vendor bills an input image (lib/ai/pricing/image-tokens.ts). */
  imageTokens: z
    .discriminatedUnion("rule", [
      z.strictObject({ rule: z.literal("openai-tiles"), base: z.number().int().nonnegative(), perTile: z.number().int().nonnegative() }),
      z.strictObject({
        rule: z.literal("openai-patches"),
        multiplier: z.number().positive().max(100),
        maxPatches: z.number().int().positive(),
      }),
      z.strictObject({ rule: z.literal("anthropic") }),
      z.strictObject({ rule: z.literal("gemini-tiles"), perTile: z.number().int().nonnegative() }),
      z.strictObject({ rule: z.literal("fixed"), tokens: z.number().int().nonnegative() }),
    ])
    .optional(),
  /** A fixed token count per input image (shorthand for imageTokens: { rule: "fixed", tokens }). */
  imageInputTokens: z.number().int().nonnegative().optional(),
  /** The tokenizer the vendor bills by: o200k, cl100k (OpenAI's), or bytes (any other: the UTF-8 length bounds it). Default bytes. */
  tokenizer: z.enum(["o200k", "cl100k", "bytes"]).optional(),
  /** The model thinks before it answers, billed as output but not streamed. */
  hiddenReasoning: z.boolean().optional(),
});

export const modelOverridesSchema = z.record(
  z.string().regex(/^[\w.:/-]{1,100}$/, "model ids are 1-100 letters, digits and . _ : / -"),
  modelOverrideSchema,
);
export type ModelOverrides = z.infer<typeof modelOverridesSchema>;
