import { z } from "zod";
import { endUserField, requestMetadataField } from "./request-tags";
import { MAX_CONTENT_CHARS, MAX_IMAGES, MAX_MESSAGES } from "@/lib/ai/schemas";

/**
 * Request and response schemas of the OpenAI-compatible API (/v1), as OpenAI's API reference shapes
 * them. What we accept but ignore, and what we refuse, is listed in docs/API-NOTES.md
 * "OpenAI-compatible API"; a parameter we do not know is refused with a 400 naming it (as OpenAI does).
 */
const nullish = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** Reads a body's keys against the accepted ones: an unknown or refused parameter is an issue on its own path. */
function checkParams(accepted: ReadonlySet<string>, refused: Record<string, (value: unknown) => string | null>) {
  return (body: Record<string, unknown>, ctx: z.RefinementCtx) => {
    for (const [key, value] of Object.entries(body)) {
      if (key in refused) {
        const problem = refused[key](value);
        if (problem) ctx.addIssue({ code: "custom", path: [key], message: problem });
      } else if (!accepted.has(key)) {
        ctx.addIssue({ code: "custom", path: [key], message: "unrecognized request argument" });
      }
    }
  };
}

const empty = (v: unknown) => v === null || v === undefined || v === false || (Array.isArray(v) && v.length === 0);

const textPart = z.object({ type: z.literal("text"), text: z.string().max(MAX_CONTENT_CHARS) });
const imagePart = z.object({
  type: z.literal("image_url"),
  image_url: z.object({ url: z.string().max(8 * 1024 * 1024), detail: z.enum(["auto", "low", "high"]).optional() }),
});
const contentPart = z.discriminatedUnion("type", [textPart, imagePart], {
  error: "content parts must be of type text or image_url (audio and file parts are not supported)",
});

const chatMessage = z.object({
  role: z.enum(["system", "developer", "user", "assistant"], {
    error: "must be system, developer, user or assistant (tool messages are not supported)",
  }),
  content: z.union([z.string().max(MAX_CONTENT_CHARS), z.array(contentPart).min(1).max(20), z.null()]),
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1 to 64 letters, digits, _ or -")
    .optional(),
});
export type OpenAiChatMessage = z.infer<typeof chatMessage>;

const CHAT_FIELDS = z.looseObject({
  model: z.string({ error: "is required" }).min(1, "is required").max(100),
  messages: z.array(chatMessage, { error: "is required" }).min(1, "at least one message is required").max(MAX_MESSAGES),
  max_tokens: nullish(z.number().int().positive().max(1_000_000)),
  max_completion_tokens: nullish(z.number().int().positive().max(1_000_000)),
  temperature: nullish(z.number().min(0).max(2)),
  stream: nullish(z.boolean()),
  stream_options: nullish(z.object({ include_usage: z.boolean().optional() })),
  n: nullish(z.literal(1, { error: "only 1 choice per request is supported" })),
  user: endUserField,
  metadata: requestMetadataField,
});

const CHAT_ACCEPTED = new Set([
  ...Object.keys(CHAT_FIELDS.shape),
  // Accepted and ignored: sampling details and bookkeeping that do not change what is charged.
  "top_p",
  "presence_penalty",
  "frequency_penalty",
  "seed",
  "store",
  "service_tier",
  "parallel_tool_calls",
  "prompt_cache_key",
  "safety_identifier",
  "reasoning_effort",
]);

const CHAT_REFUSED: Record<string, (value: unknown) => string | null> = {
  tools: (v) => (empty(v) ? null : "tools and function calling are not supported"),
  functions: (v) => (empty(v) ? null : "tools and function calling are not supported"),
  tool_choice: (v) => (v === null || v === undefined || v === "none" ? null : "tools and function calling are not supported"),
  function_call: (v) => (v === null || v === undefined || v === "none" ? null : "tools and function calling are not supported"),
  response_format: (v) =>
    v === null || v === undefined || (typeof v === "object" && (v as { type?: unknown }).type === "text")
      ? null
      : "only the text response format is supported",
  stop: (v) => (empty(v) ? null : "stop sequences are not supported"),
  logprobs: (v) => (empty(v) ? null : "log probabilities are not supported"),
  top_logprobs: (v) => (v === null || v === undefined || v === 0 ? null : "log probabilities are not supported"),
  logit_bias: (v) =>
    v === null || v === undefined || (typeof v === "object" && Object.keys(v as object).length === 0)
      ? null
      : "logit_bias is not supported",
  modalities: (v) => (empty(v) || (Array.isArray(v) && v.every((m) => m === "text")) ? null : "only the text modality is supported"),
  audio: (v) => (empty(v) ? null : "audio output is not supported"),
  prediction: (v) => (empty(v) ? null : "predicted outputs are not supported"),
  web_search_options: (v) => (empty(v) ? null : "web search is not supported"),
};

export const chatCompletionBody = CHAT_FIELDS.superRefine(checkParams(CHAT_ACCEPTED, CHAT_REFUSED)).superRefine((body, ctx) => {
  let images = 0;
  for (const m of body.messages) if (Array.isArray(m.content)) images += m.content.filter((p) => p.type === "image_url").length;
  if (images > MAX_IMAGES)
    ctx.addIssue({ code: "custom", path: ["messages"], message: `at most ${MAX_IMAGES} images per request, got ${images}` });
  if (body.stream_options && !body.stream)
    ctx.addIssue({ code: "custom", path: ["stream_options"], message: "is only allowed when stream is true" });
});
export type ChatCompletionBody = z.infer<typeof chatCompletionBody>;

/** Embeddings: text inputs only (token arrays are not accepted). */
const EMBEDDING_FIELDS = z.looseObject({
  model: z.string({ error: "is required" }).min(1, "is required").max(100),
  input: z.union(
    [
      z.string().min(1, "must not be empty"),
      z.array(z.string().min(1, "must not be empty")).min(1, "must not be empty").max(2048, "at most 2048 inputs per request"),
    ],
    {
      error: "must be a string or an array of strings (token arrays are not supported)",
    },
  ),
  encoding_format: nullish(z.enum(["float", "base64"], { error: "must be float or base64" })),
  dimensions: nullish(z.number().int().positive().max(65_536)),
  user: endUserField,
});
export const embeddingsBody = EMBEDDING_FIELDS.superRefine(checkParams(new Set([...Object.keys(EMBEDDING_FIELDS.shape), "user"]), {}));
export type EmbeddingsBody = z.infer<typeof embeddingsBody>;

/** Image generation: GPT Image sizes and qualities, one image, returned as base64. */
const IMAGE_FIELDS = z.looseObject({
  prompt: z
    .string({ error: "is required" })
    .min(1, "must be 1 to 32000 characters")
    .max(32_000, "must be 1 to 32000 characters")
    .refine((s) => s.trim().length > 0, "must not be blank"),
  model: nullish(z.string().min(1).max(100)),
  n: nullish(z.literal(1, { error: "only 1 image per request is supported" })),
  size: nullish(z.enum(["1024x1024", "1536x1024", "1024x1536", "auto"], { error: "must be 1024x1024, 1536x1024, 1024x1536 or auto" })),
  quality: nullish(z.enum(["low", "medium", "high", "auto"], { error: "must be low, medium, high or auto" })),
  response_format: nullish(z.literal("b64_json", { error: "only b64_json is supported (images are not hosted)" })),
  output_format: nullish(z.enum(["png", "jpeg", "webp"], { error: "must be png, jpeg or webp" })),
  background: nullish(z.enum(["transparent", "opaque", "auto"], { error: "must be transparent, opaque or auto" })),
  user: endUserField,
});
export const imagesBody = IMAGE_FIELDS.superRefine(
  checkParams(new Set([...Object.keys(IMAGE_FIELDS.shape), "user", "moderation", "style", "output_compression", "partial_images"]), {
    stream: (v) => (empty(v) ? null : "streaming image generation is not supported"),
  }),
).superRefine((body, ctx) => {
  if (body.background === "transparent" && body.output_format === "jpeg") {
    ctx.addIssue({ code: "custom", path: ["background"], message: "a transparent background needs output_format png or webp" });
  }
});
export type ImagesBody = z.infer<typeof imagesBody>;

/** Transcription's text fields (the file is read separately). */
export const transcriptionFields = z.object({
  model: z.string().min(1).max(100).optional(),
  response_format: z
    .enum(["json", "text", "verbose_json"], { error: "must be json, text or verbose_json (srt and vtt are not supported)" })
    .default("json"),
  temperature: z.coerce.number().min(0).max(1).optional(),
  prompt: z.string().max(10_000).optional(),
});
export const TRANSCRIPTION_TEXT_FIELDS = ["model", "response_format", "temperature", "prompt"] as const;

/* Responses (documented in the OpenAPI; the shapes OpenAI's SDKs read). */

const usage = z.object({
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
  credits_charged: z.number().meta({ description: "credits this call was charged (our addition)" }),
  credits_remaining: z.number().meta({ description: "usable credits after it (our addition)" }),
});

export const chatCompletionResponse = z.object({
  id: z.string(),
  object: z.literal("chat.completion"),
  created: z.number(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number(),
      message: z.object({ role: z.literal("assistant"), content: z.string(), refusal: z.null() }),
      logprobs: z.null(),
      finish_reason: z.enum(["stop", "length"]),
    }),
  ),
  usage,
  system_fingerprint: z.null(),
});

export const embeddingsResponse = z.object({
  object: z.literal("list"),
  data: z.array(z.object({ object: z.literal("embedding"), index: z.number(), embedding: z.union([z.array(z.number()), z.string()]) })),
  model: z.string(),
  usage: z.object({ prompt_tokens: z.number(), total_tokens: z.number(), credits_charged: z.number(), credits_remaining: z.number() }),
});

export const imagesResponse = z.object({
  created: z.number(),
  data: z.array(z.object({ b64_json: z.string(), revised_prompt: z.string() })),
  background: z.string(),
  output_format: z.string(),
  quality: z.string(),
  size: z.string(),
});

export const transcriptionResponse = z.object({ text: z.string(), usage: z.object({ type: z.literal("duration"), seconds: z.number() }) });

export const modelObject = z.object({
  id: z.string(),
  object: z.literal("model"),
  created: z.number(),
  owned_by: z.string(),
  kind: z.enum(["chat", "embeddings", "images", "transcription"]).meta({ description: "the call kind it serves (our addition)" }),
  pricing: z
    .object({
      mode: z.enum(["flat", "metered"]),
      credits_per_call: z.number().nullable().meta({ description: "flat mode: what one call costs" }),
      credits_per_usd: z
        .number()
        .nullable()
        .meta({ description: "metered mode: credits per USD of list-price usage (the markup over the credit's value)" }),
      min_credits_per_call: z.number().nullable(),
      flat_limits: z
        .array(
          z.object({
            operation: z.string(),
            credits: z.number(),
            max_input: z.number().optional().meta({ description: "the most input one call may send (in input_unit)" }),
            input_unit: z
              .enum(["tokens", "bytes"])
              .optional()
              .meta({ description: "bytes: the model's tokenizer is not published, so its input is counted by its UTF-8 length" }),
            max_output_tokens: z.number().optional(),
            largest_image: z.string().optional(),
            max_audio_minutes: z.number().optional(),
          }),
        )
        .nullable()
        .meta({ description: "flat mode: the largest call each flat price accepts, after the AI_FLAT_MARGIN safety margin" }),
      usd: z
        .record(z.string(), z.unknown())
        .meta({ description: "the list prices a metered call is priced from (USD; per million tokens, per image, per audio minute)" }),
    })
    .meta({ description: "our addition" }),
});
export const modelsResponse = z.object({ object: z.literal("list"), data: z.array(modelObject) });
