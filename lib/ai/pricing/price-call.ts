import type { ImagePixelSize, ImageQualityTier, ModelSpec, TokenPrices } from "../catalog/model-catalog";
import type { PricingSettings } from "./pricing-settings";

/**
 * What a call costs: upstream, in USD millionths ("micros", exact: rounded once, when turned into
 * credits), and in credits. Pure arithmetic over the model catalog; the same functions price the
 * worst case before a call and the usage after it, so a reservation and its settlement never
 * disagree on the formula.
 */
export interface CallUsage {
  /** Prompt tokens, including cached ones (chat, embedding, image prompts). */
  promptTokens?: number;
  /** Of those, served from the provider's prompt cache. */
  cachedPromptTokens?: number;
  completionTokens?: number;
  images?: { quality: ImageQualityTier; size: ImagePixelSize; count: number };
  audioSeconds?: number;
}

/** The token prices that apply to a call with this many prompt tokens (tiered vendors charge more above a threshold). */
export function tokenPricesFor(model: ModelSpec, promptTokens: number): TokenPrices {
  const base = model.perMillionTokens ?? { input: 0 };
  return model.longContext && promptTokens > model.longContext.above ? model.longContext : base;
}

/** Upstream cost of a call, in USD millionths (exact; the ledger records it rounded up). */
export function costMicros(model: ModelSpec, usage: CallUsage): number {
  const prompt = Math.max(0, usage.promptTokens ?? 0);
  const cached = Math.min(prompt, Math.max(0, usage.cachedPromptTokens ?? 0));
  const completion = Math.max(0, usage.completionTokens ?? 0);
  const p = tokenPricesFor(model, prompt);
  // Per million tokens, so a token's price in micros is the USD-per-million figure itself.
  let micros = (prompt - cached) * p.input + cached * (p.cachedInput ?? p.input) + completion * (p.output ?? 0);
  if (usage.images && model.perImage) micros += usage.images.count * model.perImage[usage.images.quality][usage.images.size] * 1e6;
  if (usage.audioSeconds && model.perAudioMinute) micros += (usage.audioSeconds / 60) * model.perAudioMinute * 1e6;
  return micros;
}

/** Micros as the ledger records them: rounded up to a whole micro (float noise never rounds one up). */
export function wholeMicros(micros: number): number {
  return Math.ceil(micros - 1e-6);
}

/** Credits that pay for `micros` of upstream cost: cost x markup / credit value, rounded up, at least the minimum. */
export function creditsForCost(micros: number, s: PricingSettings): number {
  const exact = (micros * s.markup) / (s.creditValueUsd * 1e6);
  return Math.max(s.minCreditsPerCall, Math.ceil(exact - 1e-9));
}

/**
 * The most upstream cost (micros) a flat price of `credits` may spend on one call: what the credits
 * are worth at the markup, less the flat margin (AI_FLAT_MARGIN), so estimates and vendor rounding
 * never sell a call below cost.
 */
export function costBudgetMicros(credits: number, s: PricingSettings): number {
  return Math.floor((credits * s.creditValueUsd * 1e6 * (1 - s.flatMargin)) / s.markup + 1e-6);
}

/** Micros of one output token of a call with this many prompt tokens. */
export function outputTokenMicros(model: ModelSpec, promptTokens: number): number {
  return tokenPricesFor(model, promptTokens).output ?? 0;
}

/** A one-line prompt with its framing, for the "output with a short prompt" limit. */
const SHORT_PROMPT_TOKENS = 20;

/** The most prompt tokens whose input cost (plus one output token) fits `budget` micros. */
export function maxPromptTokensWithin(model: ModelSpec, budget: number): number {
  const base = tokenPricesFor(model, 0);
  let n = Math.max(0, Math.floor((budget - (base.output ?? 0)) / Math.max(base.input, 1e-9)));
  if (model.longContext && n > model.longContext.above) {
    n = Math.max(model.longContext.above, Math.floor((budget - (model.longContext.output ?? 0)) / Math.max(model.longContext.input, 1e-9)));
  }
  return Math.min(n, (model.contextWindow ?? n + 1) - 1);
}

/** The largest input and output a chat model accepts at a flat price (printed at start-up, shown by the public config). */
export function flatChatLimits(model: ModelSpec, credits: number, s: PricingSettings): { maxInputTokens: number; maxOutputTokens: number } {
  const budget = costBudgetMicros(credits, s);
  const perOutput = outputTokenMicros(model, 0);
  const output = perOutput > 0 ? Math.floor((budget - costMicros(model, { promptTokens: SHORT_PROMPT_TOKENS })) / perOutput) : Infinity;
  return {
    maxInputTokens: maxPromptTokensWithin(model, budget),
    maxOutputTokens: Math.max(0, Math.min(model.maxOutputTokens ?? 0, output)),
  };
}
