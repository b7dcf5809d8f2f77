import { AppError } from "@/lib/errors";
import { imageSizeOf, imageTokens } from "./image-tokens";
import type { ModelSpec } from "../catalog/model-catalog";
import type { ChatMessage } from "../providers/provider-types";
import { countTokens, countTokensYielding, utf8Bytes } from "./tokens";

/** A 400 naming the request field whose content cannot be priced. */
export function invalidField(param: string, message: string): AppError {
  return new AppError("validation_failed", `Invalid body: ${param}: ${message}`, { param });
}

/** OpenAI's chat framing: 3 tokens per message, 1 for its role, 1 more for a name, 3 to prime the reply. */
const PER_MESSAGE = 4;
const PER_NAME = 1;
const REPLY_PRIMING = 3;

/** The text of a chat request, piece by piece, and its images. */
function promptParts(messages: ChatMessage[]): { texts: string[]; images: string[] } {
  const texts: string[] = [];
  const images: string[] = [];
  for (const m of messages) {
    if (m.name) texts.push(m.name);
    if (typeof m.content === "string") texts.push(m.content);
    else
      for (const part of m.content) {
        if (part.type === "text") texts.push(part.text);
        else images.push(part.image);
      }
  }
  return { texts, images };
}

export interface PromptCount {
  /** An upper bound of what the vendor bills for the prompt (its tokenizer or UTF-8 length, framing, images), at most the context window. */
  bound: number;
  /** The best estimate of its length, for the context-window check (exact for OpenAI's models). */
  estimate: number;
  images: number;
}

/** Tokens of one input image for a model: its vendor's rule over the image's real size. */
function inputImageTokens(model: ModelSpec, image: string, field: string): number {
  if (!model.imageTokens) throw invalidField(field, `${model.id} does not accept images`);
  const size = imageSizeOf(image);
  if (!size) throw invalidField(field, "the image's width and height cannot be read (a PNG, JPEG, GIF or WebP file is expected)");
  return imageTokens(model.imageTokens, size);
}

/**
 * The prompt of a chat request as the vendor bills it. Counting gives way to other requests every
 * 32 KB, and stops once the text is too long for the model anyway.
 */
export async function countPromptTokens(model: ModelSpec, messages: ChatMessage[], field = "messages"): Promise<PromptCount> {
  const { texts, images } = promptParts(messages);
  const framing = REPLY_PRIMING + messages.length * PER_MESSAGE + messages.filter((m) => m.name).length * PER_NAME;
  const context = model.contextWindow ?? Infinity;
  const imageCost = images.reduce((sum, image) => sum + inputImageTokens(model, image, field), 0);
  const bytes = texts.reduce((sum, t) => sum + utf8Bytes(t), 0);
  let estimate: number;
  let text: number;
  if (model.tokenizer === "bytes") {
    text = bytes;
    // Bytes bound the tokens: a text of fewer bytes than the context fits; otherwise count it (o200k).
    estimate = bytes + framing + imageCost < context ? bytes : await countAll(texts, "o200k", context);
  } else {
    // The exact count, which cannot exceed the bytes: stop once the context is passed.
    text = await countAll(texts, model.tokenizer, context);
    estimate = text;
  }
  const bound = Math.min(text + framing + imageCost, Number.isFinite(context) ? context : Infinity);
  return { bound, estimate: estimate + framing + imageCost, images: images.length };
}

async function countAll(texts: string[], tokenizer: "o200k" | "cl100k", limit: number): Promise<number> {
  let total = 0;
  for (const t of texts) {
    total += t.length > 32 * 1024 ? await countTokensYielding(t, tokenizer, limit - total) : countTokens(t, tokenizer);
    if (total > limit) break;
  }
  return total;
}
