import { z } from "zod";
import { AppError } from "@/lib/errors";
import { PUBLIC_IMAGE_MODELS } from "./settings";

/** Request schemas of the AI endpoints (SPEC §4.4) and their documented bounds (docs/API-NOTES.md "AI"). */
export const MAX_MESSAGES = 100;
export const MAX_CONTENT_CHARS = 100_000;
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const MAX_IMAGES = 4;
export const MAX_CACHE_TTL_SECONDS = 30 * 24 * 3600;
export const DEFAULT_CACHE_TTL_SECONDS = 3600;
export const MAX_BATCH = 10;

const role = z.enum(["system", "user", "assistant", "function", "tool"]);
const name = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1 to 64 letters, digits, _ or -")
  .optional();

export const chatMessageSchema = z.object({
  role,
  content: z.string().max(MAX_CONTENT_CHARS),
  name,
});

const IMAGE_DATA_URL = /^data:image\/(png|jpeg|jpg|gif|webp);base64,([A-Za-z0-9+/]+={0,2})$/;

/** Checks that the decoded bytes really are the declared image type. */
function imageMagicMatches(type: string, bytes: Buffer): boolean {
  switch (type) {
    case "png":
      return bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    case "jpeg":
    case "jpg":
      return bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
    case "gif":
      return bytes.subarray(0, 4).toString("latin1") === "GIF8";
    case "webp":
      return bytes.subarray(0, 4).toString("latin1") === "RIFF" && bytes.subarray(8, 12).toString("latin1") === "WEBP";
    default:
      return false;
  }
}

export const imageDataUrl = z.string().superRefine((value, ctx) => {
  const match = IMAGE_DATA_URL.exec(value);
  if (!match) {
    ctx.addIssue({ code: "custom", message: "must be a base64 data URL of a PNG, JPEG, GIF or WebP image (data:image/png;base64,...)" });
    return;
  }
  const approxBytes = Math.floor((match[2].length * 3) / 4);
  if (approxBytes > MAX_IMAGE_BYTES) {
    ctx.addIssue({ code: "custom", message: `image is ${approxBytes} bytes; at most ${MAX_IMAGE_BYTES} bytes (5 MB) allowed` });
    return;
  }
  if (!imageMagicMatches(match[1], Buffer.from(match[2].slice(0, 24), "base64"))) {
    ctx.addIssue({ code: "custom", message: `data is not a ${match[1]} image` });
  }
});

export const contentPartSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string().max(MAX_CONTENT_CHARS) }),
  z.object({ type: z.literal("image"), image: imageDataUrl }),
]);

const temperature = z.number().min(0).max(2).optional();
const maxTokens = z.number().int().positive().max(128_000).optional();
const model = z.string().min(1).max(100).optional();
const systemPrompt = z.string().max(MAX_CONTENT_CHARS).optional();

export const chatBodySchema = z.object({
  messages: z.array(chatMessageSchema).min(1, "at least one message is required").max(MAX_MESSAGES),
  model,
  temperature,
  maxTokens,
  systemPrompt,
  context: z.string().max(MAX_CONTENT_CHARS).optional(),
  cache: z.boolean().optional(),
  cacheTTL: z.number().int().positive().max(MAX_CACHE_TTL_SECONDS).optional(),
});
export type ChatBody = z.infer<typeof chatBodySchema>;

export const chatBatchSchema = z.object({
  requests: z.array(chatBodySchema).min(1, "at least one request is required").max(MAX_BATCH, `at most ${MAX_BATCH} requests per batch`),
});
export type ChatBatchBody = z.infer<typeof chatBatchSchema>;

export const streamBodySchema = z
  .object({
    messages: z
      .array(z.object({ role, content: z.union([z.string().max(MAX_CONTENT_CHARS), z.array(contentPartSchema).min(1).max(20)]), name }))
      .min(1, "at least one message is required")
      .max(MAX_MESSAGES),
    model,
    temperature,
    maxTokens,
    systemPrompt,
  })
  .superRefine((body, ctx) => {
    const images = body.messages.reduce(
      (n, m) => n + (typeof m.content === "string" ? 0 : m.content.filter((p) => p.type === "image").length),
      0,
    );
    if (images > MAX_IMAGES)
      ctx.addIssue({ code: "custom", path: ["messages"], message: `at most ${MAX_IMAGES} images per request, got ${images}` });
  });
export type StreamBody = z.infer<typeof streamBodySchema>;

export const imageBodySchema = z
  .object({
    prompt: z
      .string()
      .min(1, "must be 1 to 4000 characters")
      .max(4000, "must be 1 to 4000 characters")
      .refine((s) => s.trim().length > 0, "must not be blank"),
    model: z.enum(PUBLIC_IMAGE_MODELS).default("image-model-1"),
    size: z.enum(["1024x1024", "1536x1024", "1024x1536", "auto"]).default("1024x1024"),
    quality: z.enum(["low", "medium", "high", "auto"]).default("auto"),
    output_format: z.enum(["png", "jpeg", "webp"]).default("png"),
    background: z.enum(["opaque", "transparent"]).default("opaque"),
  })
  .superRefine((body, ctx) => {
    if (body.background === "transparent" && body.output_format === "jpeg") {
      ctx.addIssue({
        code: "custom",
        path: ["background"],
        message: "transparent background needs output_format png or webp (jpeg has no transparency)",
      });
    }
  });
export type ImageBody = z.infer<typeof imageBodySchema>;

/** Formats zod issues like the route wrapper does: "Invalid body: field: message; ...". */
export function validationError(error: z.ZodError): AppError {
  const parts = error.issues.slice(0, 5).map((issue) => `${issue.path.length ? issue.path.join(".") : "body"}: ${issue.message}`);
  return new AppError("validation_failed", `Invalid body: ${parts.join("; ")}`);
}

export type ParsedChatBody = { batch: false; request: ChatBody } | { batch: true; requests: ChatBody[] };

/**
 * The chat endpoint's body: a single request, or a batch `{ requests: [...] }` (1-10). Issues keep
 * their paths (e.g. "requests.2.temperature") so the route wrapper's 400 names the field.
 */
export const chatRequestSchema = z.unknown().transform((value, ctx): ParsedChatBody => {
  const isBatch = Boolean(value && typeof value === "object" && !Array.isArray(value) && "requests" in value);
  const result = isBatch ? chatBatchSchema.safeParse(value) : chatBodySchema.safeParse(value);
  if (!result.success) {
    for (const issue of result.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
    return z.NEVER;
  }
  return isBatch ? { batch: true, requests: (result.data as ChatBatchBody).requests } : { batch: false, request: result.data as ChatBody };
});

/** JSON body bound of /api/ai/stream: every allowed image as base64 (4/3 of its bytes) plus 1 MiB of text. */
export const STREAM_MAX_BODY_BYTES = Math.ceil((MAX_IMAGES * MAX_IMAGE_BYTES * 4) / 3) + 1024 * 1024;
/** JSON body bound of /api/ai/chat (a batch of 10 requests with their context). */
export const CHAT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/* Response shapes of the AI endpoints (the dashboard infers its types from these). */

const tokenUsage = z.object({ promptTokens: z.number(), completionTokens: z.number() });

/** POST /api/ai/chat, single request (X-Cache: HIT or MISS says whether it came from the answer cache). */
export const chatAnswerResponse = z.object({ text: z.string(), model: z.string(), usage: tokenUsage, cost: z.number() });

/** POST /api/ai/chat, batch: results in request order (`cached`: answered from the answer cache), `cost` = credits charged. */
export const chatBatchResponse = z.object({
  results: z.array(
    z.union([
      chatAnswerResponse.extend({ cached: z.boolean() }),
      z.object({ error: z.string(), code: z.string().meta({ description: "the error's code, as in error bodies" }) }),
    ]),
  ),
  cost: z.number(),
});

export const chatResponse = z.union([chatAnswerResponse, chatBatchResponse]);

/** POST /api/ai/speech-to-text. */
export const transcriptionResponse = z.object({ text: z.string(), language: z.string(), duration: z.number() });

/** POST /api/ai/image-gen. */
export const imageGenResponse = z.object({
  image: z.string(),
  model: z.string(),
  size: z.string(),
  quality: z.string(),
  format: z.string(),
  revised_prompt: z.string(),
  credits_used: z.number(),
  credits_remaining: z.number(),
});

/**
 * The events of the text/event-stream answers (/api/ai/stream, /api/ai/generate-content, rag/ask with
 * stream): `data:` text chunks or an error, `event: meta` with the credits, then `data: [DONE]`.
 */
export const streamDataEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("error"), error: z.string() }),
]);
export const streamMetaEvent = z.object({ creditsUsed: z.number(), creditsRemaining: z.number() });
