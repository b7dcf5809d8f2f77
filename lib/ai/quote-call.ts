import { AppError } from "@/lib/errors";
import { IMAGE_QUALITIES, IMAGE_SIZES, type ImagePixelSize, type ImageQualityTier, type ModelSpec } from "./model-catalog";
import { costBudgetMicros, costMicros, creditsForCost, maxPromptTokensWithin, outputTokenMicros, type CallUsage } from "./price-call";
import { pricingSettings, type PricingSettings } from "./pricing-settings";
import type { ChatMessage } from "./provider-types";
import { countTokens } from "./tokens";

/**
 * The worst case of a call before it is made, and what to reserve for it (docs/API-NOTES.md
 * "Pricing"). Metered: the worst case's credits are reserved and the usage settles them. Flat: the
 * flat price is reserved, and a call whose worst case would cost more upstream than those credits
 * are worth (at the markup) is refused with a 400 naming the limit; a chat without maxTokens gets
 * the largest output that fits as its upstream cap, so it is never refused for that alone.
 */
export interface Quote {
  model: ModelSpec;
  /** Credits to reserve. */
  reserve: number;
  /** The call's flat price (flat mode), or null (metered). */
  flatCredits: number | null;
  /** The usage priced as the worst case. */
  worst: CallUsage;
  worstMicros: number;
  /** Chat: the output cap sent upstream. */
  maxOutputTokens?: number;
  /** Chat: the request field that sets the output cap, as the caller's API names it (maxTokens, max_tokens). */
  maxTokensField?: string;
}

const fmt = (n: number) => n.toLocaleString("en-US");
const usd = (micros: number) => `$${(micros / 1e6).toFixed(micros < 1_000_000 ? 4 : 2)}`;

function invalid(param: string, message: string): AppError {
  return new AppError("validation_failed", `Invalid body: ${param}: ${message}`, { param });
}

/** OpenAI's chat framing: 3 tokens per message, 1 for its role, 1 more for a name, 3 to prime the reply. */
const PER_MESSAGE = 4;
const PER_NAME = 1;
const REPLY_PRIMING = 3;

/**
 * Prompt tokens of a chat request, counted with the o200k tokenizer (exact for OpenAI's models; for
 * other vendors times the model's margin) plus each image at the model's per-image worst case.
 */
export function countPromptTokens(model: ModelSpec, messages: ChatMessage[]): { tokens: number; images: number } {
  let text = REPLY_PRIMING;
  let images = 0;
  for (const m of messages) {
    text += PER_MESSAGE + (m.name ? PER_NAME + countTokens(m.name) : 0);
    if (typeof m.content === "string") text += countTokens(m.content);
    else
      for (const part of m.content) {
        if (part.type === "text") text += countTokens(part.text);
        else images++;
      }
  }
  const margin = model.tokenizerMargin ?? 1;
  return { tokens: Math.ceil(text * margin) + images * (model.imageInputTokens ?? 0), images };
}

function quoteFrom(model: ModelSpec, worst: CallUsage, flatCredits: number | null, s: PricingSettings, extra: Partial<Quote> = {}): Quote {
  const worstMicros = costMicros(model, worst);
  return { model, worst, worstMicros, flatCredits, reserve: flatCredits ?? creditsForCost(worstMicros, s), ...extra };
}

/**
 * A chat call (JSON, stream, content generation, RAG answer): its prompt and the output cap. `flat`
 * is the call's flat price, used in flat mode. Errors name the field to change.
 */
export function quoteChat(input: { model: ModelSpec; messages: ChatMessage[]; maxTokens?: number; flat: number; field?: string; maxTokensField?: string }): Quote {
  const s = pricingSettings();
  const { model } = input;
  const field = input.field ?? "messages";
  const maxTokensField = input.maxTokensField ?? "maxTokens";
  const prompt = countPromptTokens(model, input.messages).tokens;
  const context = model.contextWindow ?? Infinity;
  const modelMax = model.maxOutputTokens ?? 4096;
  if (prompt >= context) throw invalid(field, `the input is about ${fmt(prompt)} tokens; ${model.id} accepts at most ${fmt(context)}`);
  if (input.maxTokens !== undefined && input.maxTokens > modelMax) throw invalid(maxTokensField, `at most ${fmt(modelMax)} for ${model.id}`);
  const room = Math.min(modelMax, context - prompt);
  let cap = Math.min(input.maxTokens ?? room, room);
  if (s.mode === "flat") {
    const budget = costBudgetMicros(input.flat, s);
    const inputCost = costMicros(model, { promptTokens: prompt });
    const perOutput = outputTokenMicros(model, prompt);
    const affordable = perOutput > 0 ? Math.floor((budget - inputCost) / perOutput) : room;
    if (affordable < 1) {
      const maxPrompt = maxPromptTokensWithin(model, budget);
      throw invalid(
        field,
        `the input is about ${fmt(prompt)} tokens; at the flat price of ${input.flat} credits (${usd(budget)} of ${model.id} usage) it may be at most about ${fmt(maxPrompt)} tokens`,
      );
    }
    if (input.maxTokens !== undefined && input.maxTokens > affordable) {
      throw invalid(maxTokensField, `at most ${fmt(affordable)} for ${model.id} with this input at the flat price of ${input.flat} credits (${usd(budget)} of usage)`);
    }
    cap = Math.min(cap, affordable);
  }
  return quoteFrom(model, { promptTokens: prompt, completionTokens: cap }, s.mode === "flat" ? input.flat : null, s, { maxOutputTokens: cap, maxTokensField });
}

/**
 * A call that any of several routes may answer (lib/ai/routes.ts), each priced by its own catalog
 * model: the quote of the dearest route, so whichever answers, the reservation covers it, and an
 * output cap every route accepts.
 */
export function quoteAcross(quotes: Quote[]): Quote {
  const dearest = quotes.reduce((a, b) => (b.worstMicros > a.worstMicros ? b : a));
  const caps = quotes.map((q) => q.maxOutputTokens).filter((c): c is number => c !== undefined);
  return caps.length ? { ...dearest, maxOutputTokens: Math.min(...caps) } : dearest;
}

/** Image generation: quality and size "auto" count as the dearest the provider may pick. */
export function quoteImage(input: { model: ModelSpec; prompt: string; size: string; quality: string; flat: number }): Quote {
  const s = pricingSettings();
  const { model } = input;
  const prompt = countTokens(input.prompt);
  const { quality, size } = dearestImage(model, input.quality, input.size);
  const quote = quoteFrom(model, { promptTokens: prompt, images: { quality, size, count: 1 } }, s.mode === "flat" ? input.flat : null, s);
  if (s.mode === "flat" && quote.worstMicros > costBudgetMicros(input.flat, s)) {
    const param = input.quality === "auto" || input.quality === "high" ? "quality" : "size";
    throw invalid(
      param,
      `a ${quality}-quality ${size} image from ${model.id} costs up to ${usd(quote.worstMicros)}, more than the flat price of ${input.flat} credits pays for (${usd(costBudgetMicros(input.flat, s))}); choose a lower quality or a smaller size`,
    );
  }
  return quote;
}

/** The quality and size an image is priced at: the requested ones, or for "auto" the dearest. */
export function dearestImage(model: ModelSpec, quality: string, size: string): { quality: ImageQualityTier; size: ImagePixelSize } {
  const prices = model.perImage;
  const qualities = (IMAGE_QUALITIES as readonly string[]).includes(quality) ? [quality as ImageQualityTier] : [...IMAGE_QUALITIES];
  const sizes = (IMAGE_SIZES as readonly string[]).includes(size) ? [size as ImagePixelSize] : [...IMAGE_SIZES];
  let best = { quality: qualities[0], size: sizes[0], usd: -1 };
  for (const q of qualities) for (const z of sizes) if ((prices?.[q][z] ?? 0) > best.usd) best = { quality: q, size: z, usd: prices?.[q][z] ?? 0 };
  return { quality: best.quality, size: best.size };
}

/** Speech to text: `seconds` is the recording's length as read from the file (see lib/ai/audio.ts). */
export function quoteTranscription(input: { model: ModelSpec; seconds: number; flat: number }): Quote {
  const s = pricingSettings();
  const quote = quoteFrom(input.model, { audioSeconds: input.seconds }, s.mode === "flat" ? input.flat : null, s);
  if (s.mode === "flat" && quote.worstMicros > costBudgetMicros(input.flat, s)) {
    const perMinute = (input.model.perAudioMinute ?? 0) * 1e6;
    const maxMinutes = perMinute > 0 ? costBudgetMicros(input.flat, s) / perMinute : Infinity;
    throw invalid(
      "audio",
      `the recording is ${(input.seconds / 60).toFixed(1)} minutes long; at the flat price of ${input.flat} credits it may be at most ${maxMinutes.toFixed(1)} minutes`,
    );
  }
  return quote;
}

/** Embeddings of some texts (the RAG question). */
export function quoteEmbedding(model: ModelSpec, texts: string[]): { usage: CallUsage; micros: number } {
  const tokens = Math.ceil(texts.reduce((n, t) => n + countTokens(t), 0) * (model.tokenizerMargin ?? 1));
  const usage = { promptTokens: tokens };
  return { usage, micros: costMicros(model, usage) };
}

/**
 * An embeddings call (the /v1 API): every input within the model's context, and in flat mode the
 * whole call within what its flat price pays for (a 400 names the input and the limit).
 */
export function quoteEmbeddings(input: { model: ModelSpec; texts: string[]; flat: number; field?: string }): Quote {
  const s = pricingSettings();
  const { model } = input;
  const field = input.field ?? "input";
  const margin = model.tokenizerMargin ?? 1;
  let tokens = 0;
  input.texts.forEach((text, i) => {
    const n = Math.ceil(countTokens(text) * margin);
    if (model.contextWindow && n > model.contextWindow) {
      throw invalid(input.texts.length > 1 ? `${field}.${i}` : field, `about ${fmt(n)} tokens; ${model.id} accepts at most ${fmt(model.contextWindow)} per input`);
    }
    tokens += n;
  });
  const quote = quoteFrom(model, { promptTokens: tokens }, s.mode === "flat" ? input.flat : null, s);
  if (s.mode === "flat" && quote.worstMicros > costBudgetMicros(input.flat, s)) {
    const perToken = costMicros(model, { promptTokens: 1_000_000 }) / 1_000_000;
    const fits = perToken > 0 ? Math.floor(costBudgetMicros(input.flat, s) / perToken) : tokens;
    throw invalid(field, `about ${fmt(tokens)} tokens in all; at the flat price of ${input.flat} credit${input.flat === 1 ? "" : "s"} a call may embed at most about ${fmt(fits)} tokens of ${model.id}`);
  }
  return quote;
}
