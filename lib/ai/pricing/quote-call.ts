import { countPromptTokens, invalidField } from "./count-prompt";
import { IMAGE_QUALITIES, IMAGE_SIZES, type ImagePixelSize, type ImageQualityTier, type ModelSpec } from "../catalog/model-catalog";
import { costBudgetMicros, costMicros, creditsForCost, maxPromptTokensWithin, outputTokenMicros, type CallUsage } from "./price-call";
import { pricingSettings, type PricingSettings } from "./pricing-settings";
import type { ChatMessage } from "../providers/provider-types";
import { countTokens, countTokensYielding, utf8Bytes } from "./tokens";

/**
 * The worst case of a call before it is made, and what to reserve for it (docs/API-NOTES.md
 * "Pricing"). The worst case is a true upper bound of what the provider can bill: prompts counted
 * with the vendor's own tokenizer (or their UTF-8 length where it is not published), images from
 * their real dimensions, audio measured from its data, the whole output cap, every route that may
 * answer and every attempt that may be billed. Metered: its credits are reserved and the usage
 * settles them. Flat: the flat price is reserved, and a call whose worst case would use more than
 * (1 - AI_FLAT_MARGIN) of what those credits are worth is refused with a 400 naming the limit; a
 * chat without maxTokens gets the largest output that fits as its upstream cap.
 */
export interface Quote {
  /** The route model the worst case is priced at (the dearest). */
  model: ModelSpec;
  /** Credits to reserve. */
  reserve: number;
  /** The call's flat price (flat mode), or null (metered). */
  flatCredits: number | null;
  /** The usage of one attempt priced as the worst case. */
  worst: CallUsage;
  /** The worst case of the whole call (every attempt that may be billed), USD millionths. */
  worstMicros: number;
  /** Per route model id, the worst usage of one attempt there (a cut attempt is billed from it). */
  byModel: Record<string, CallUsage>;
  /** Chat: the output cap sent upstream. */
  maxOutputTokens?: number;
  /** Chat: the request field that sets the output cap, as the caller's API names it (maxTokens, max_tokens). */
  maxTokensField?: string;
}

const fmt = (n: number) => n.toLocaleString("en-US");
const usd = (micros: number) => `$${(micros / 1e6).toFixed(micros < 1_000_000 ? 4 : 2)}`;

function quoteFrom(model: ModelSpec, worst: CallUsage, flatCredits: number | null, s: PricingSettings, extra: Partial<Quote> = {}): Quote {
  const worstMicros = costMicros(model, worst);
  return {
    model,
    worst,
    worstMicros,
    flatCredits,
    reserve: flatCredits ?? creditsForCost(worstMicros, s),
    byModel: { [model.id]: worst },
    ...extra,
  };
}

/**
 * A chat call (JSON, stream, content generation, RAG answer): its prompt and the output cap. `flat`
 * is the call's flat price, used in flat mode; `attempts` how many attempts may each be billed
 * (lib/ai/providers/routes.ts billableAttempts), which the flat price must cover. Errors name the field to change.
 */
export async function quoteChat(input: {
  model: ModelSpec;
  messages: ChatMessage[];
  maxTokens?: number;
  flat: number;
  field?: string;
  maxTokensField?: string;
  attempts?: number;
}): Promise<Quote> {
  const s = pricingSettings();
  const { model } = input;
  const field = input.field ?? "messages";
  const maxTokensField = input.maxTokensField ?? "maxTokens";
  const attempts = input.attempts ?? 1;
  const prompt = await countPromptTokens(model, input.messages, field);
  const context = model.contextWindow ?? Infinity;
  const modelMax = model.maxOutputTokens ?? 4096;
  if (prompt.estimate >= context)
    throw invalidField(field, `the input is about ${fmt(prompt.estimate)} tokens; ${model.id} accepts at most ${fmt(context)}`);
  if (input.maxTokens !== undefined && input.maxTokens > modelMax)
    throw invalidField(maxTokensField, `at most ${fmt(modelMax)} for ${model.id}`);
  const room = Math.min(modelMax, context - prompt.estimate);
  let cap = Math.min(input.maxTokens ?? room, room);
  if (s.mode === "flat") {
    const budget = costBudgetMicros(input.flat, s) / attempts;
    const inputCost = costMicros(model, { promptTokens: prompt.bound });
    const perOutput = outputTokenMicros(model, prompt.bound);
    const affordable = perOutput > 0 ? Math.floor((budget - inputCost) / perOutput) : room;
    if (affordable < 1) {
      const maxPrompt = maxPromptTokensWithin(model, budget);
      const unit = model.tokenizer === "bytes" ? "bytes of text" : "tokens";
      const size = model.tokenizer === "bytes" ? `${fmt(prompt.bound)} bytes of text` : `about ${fmt(prompt.bound)} tokens`;
      throw invalidField(
        field,
        `the input is ${size}; at the flat price of ${input.flat} credits (${usd(budget)} of ${model.id} usage) it may be at most about ${fmt(maxPrompt)} ${unit}`,
      );
    }
    if (input.maxTokens !== undefined && input.maxTokens > affordable) {
      throw invalidField(
        maxTokensField,
        `at most ${fmt(affordable)} for ${model.id} with this input at the flat price of ${input.flat} credits (${usd(budget)} of usage)`,
      );
    }
    cap = Math.min(cap, affordable);
  }
  const worst = { promptTokens: prompt.bound, completionTokens: cap };
  const quote = quoteFrom(model, worst, s.mode === "flat" ? input.flat : null, s, { maxOutputTokens: cap, maxTokensField });
  return attempts > 1 ? withAttempts(quote, attempts, s) : quote;
}

/** The quote of a call that may be billed `attempts` times over (route timeouts). */
function withAttempts(quote: Quote, attempts: number, s: PricingSettings): Quote {
  const worstMicros = quote.worstMicros * attempts;
  return { ...quote, worstMicros, reserve: quote.flatCredits ?? creditsForCost(worstMicros, s) };
}

/**
 * A call that any of several routes may answer (lib/ai/providers/routes.ts), each priced by its own catalog
 * model: the quote of the dearest route, so whichever answers, the reservation covers it, an output
 * cap every route accepts, and each route's own worst case (a cut attempt is billed from it).
 */
export function quoteAcross(quotes: Quote[]): Quote {
  const dearest = quotes.reduce((a, b) => (b.worstMicros > a.worstMicros ? b : a));
  const caps = quotes.map((q) => q.maxOutputTokens).filter((c): c is number => c !== undefined);
  const byModel = Object.assign({}, ...quotes.map((q) => q.byModel)) as Record<string, CallUsage>;
  if (caps.length) {
    const cap = Math.min(...caps);
    for (const id of Object.keys(byModel))
      byModel[id] = { ...byModel[id], completionTokens: Math.min(byModel[id].completionTokens ?? cap, cap) };
  }
  return caps.length ? { ...dearest, maxOutputTokens: Math.min(...caps), byModel } : { ...dearest, byModel };
}

/** Image generation: quality and size "auto" count as the dearest the provider may pick. */
export function quoteImage(input: {
  model: ModelSpec;
  prompt: string;
  size: string;
  quality: string;
  flat: number;
  attempts?: number;
}): Quote {
  const s = pricingSettings();
  const { model } = input;
  const attempts = input.attempts ?? 1;
  const prompt = countTokens(input.prompt, model.tokenizer);
  const { quality, size } = dearestImage(model, input.quality, input.size);
  const quote = quoteFrom(model, { promptTokens: prompt, images: { quality, size, count: 1 } }, s.mode === "flat" ? input.flat : null, s);
  const budget = costBudgetMicros(input.flat, s) / attempts;
  if (s.mode === "flat" && quote.worstMicros > budget) {
    const param = input.quality === "auto" || input.quality === "high" ? "quality" : "size";
    throw invalidField(
      param,
      `a ${quality}-quality ${size} image from ${model.id} costs up to ${usd(quote.worstMicros)}, more than the flat price of ${input.flat} credits pays for (${usd(budget)}); choose a lower quality or a smaller size`,
    );
  }
  return attempts > 1 ? withAttempts(quote, attempts, s) : quote;
}

/** The quality and size an image is priced at: the requested ones, or for "auto" the dearest. */
export function dearestImage(model: ModelSpec, quality: string, size: string): { quality: ImageQualityTier; size: ImagePixelSize } {
  const prices = model.perImage;
  const qualities = (IMAGE_QUALITIES as readonly string[]).includes(quality) ? [quality as ImageQualityTier] : [...IMAGE_QUALITIES];
  const sizes = (IMAGE_SIZES as readonly string[]).includes(size) ? [size as ImagePixelSize] : [...IMAGE_SIZES];
  let best = { quality: qualities[0], size: sizes[0], usd: -1 };
  for (const q of qualities)
    for (const z of sizes) if ((prices?.[q][z] ?? 0) > best.usd) best = { quality: q, size: z, usd: prices?.[q][z] ?? 0 };
  return { quality: best.quality, size: best.size };
}

/** Speech to text: `seconds` is the recording's length as measured from its data (lib/ai/audio.ts). */
export function quoteTranscription(input: { model: ModelSpec; seconds: number; flat: number; attempts?: number }): Quote {
  const s = pricingSettings();
  const attempts = input.attempts ?? 1;
  const quote = quoteFrom(input.model, { audioSeconds: input.seconds }, s.mode === "flat" ? input.flat : null, s);
  const budget = costBudgetMicros(input.flat, s) / attempts;
  if (s.mode === "flat" && quote.worstMicros > budget) {
    const perMinute = (input.model.perAudioMinute ?? 0) * 1e6;
    const maxMinutes = perMinute > 0 ? budget / perMinute : Infinity;
    throw invalidField(
      "audio",
      `the recording is ${(input.seconds / 60).toFixed(1)} minutes long; at the flat price of ${input.flat} credits it may be at most ${maxMinutes.toFixed(1)} minutes`,
    );
  }
  return attempts > 1 ? withAttempts(quote, attempts, s) : quote;
}

/** A quote priced by use in every pricing mode (work with no flat price of its own: indexing an upload). */
export function meteredQuote(model: ModelSpec, worst: CallUsage): Quote {
  return quoteFrom(model, worst, null, pricingSettings());
}

/** Embeddings of some texts (the RAG question, an upload's chunks), counted with the model's tokenizer. */
export function quoteEmbedding(model: ModelSpec, texts: string[]): { usage: CallUsage; micros: number } {
  const tokens = texts.reduce((n, t) => n + Math.min(countTokens(t, model.tokenizer), model.contextWindow ?? Infinity), 0);
  const usage = { promptTokens: tokens };
  return { usage, micros: costMicros(model, usage) };
}

/**
 * An embeddings call (the /v1 API): every input within the model's context, counted with the
 * model's own tokenizer (text-embedding-3: cl100k; a 400 names the input), and in flat mode the
 * whole call within what its flat price pays for.
 */
export async function quoteEmbeddings(input: {
  model: ModelSpec;
  texts: string[];
  flat: number;
  field?: string;
  attempts?: number;
}): Promise<Quote> {
  const s = pricingSettings();
  const { model } = input;
  const field = input.field ?? "input";
  const attempts = input.attempts ?? 1;
  const context = model.contextWindow ?? Infinity;
  let tokens = 0;
  for (const [i, text] of input.texts.entries()) {
    const name = input.texts.length > 1 ? `${field}.${i}` : field;
    let n: number;
    if (model.tokenizer === "bytes") {
      // Bytes bound the bill; the context check needs an estimate only when the bytes exceed it.
      const bytes = utf8Bytes(text);
      const estimate = bytes < context ? bytes : await countTokensYielding(text, "o200k", context);
      if (estimate > context)
        throw invalidField(name, `about ${fmt(estimate)} tokens; ${model.id} accepts at most ${fmt(context)} per input`);
      n = Math.min(bytes, context);
    } else {
      n = text.length > 32 * 1024 ? await countTokensYielding(text, model.tokenizer, context) : countTokens(text, model.tokenizer);
      if (n > context)
        throw invalidField(
          name,
          `${n > context + 1000 ? "more than " : ""}${fmt(n)} tokens (${model.tokenizer}); ${model.id} accepts at most ${fmt(context)} per input`,
        );
    }
    tokens += n;
  }
  const quote = quoteFrom(model, { promptTokens: tokens }, s.mode === "flat" ? input.flat : null, s);
  const budget = costBudgetMicros(input.flat, s) / attempts;
  if (s.mode === "flat" && quote.worstMicros > budget) {
    const perToken = costMicros(model, { promptTokens: 1_000_000 }) / 1_000_000;
    const fits = perToken > 0 ? Math.floor(budget / perToken) : tokens;
    throw invalidField(
      field,
      `about ${fmt(tokens)} tokens in all; at the flat price of ${input.flat} credit${input.flat === 1 ? "" : "s"} a call may embed at most about ${fmt(fits)} tokens of ${model.id}`,
    );
  }
  return attempts > 1 ? withAttempts(quote, attempts, s) : quote;
}
