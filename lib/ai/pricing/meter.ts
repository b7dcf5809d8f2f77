import { findModel, type ModelSpec } from "../catalog/models";
import type { CallUsage } from "./price-call";
import type { AnsweredBy, StreamPart, TokenUsage } from "../providers/provider-types";
import type { Quote } from "./quote-call";
import { countTokens } from "./tokens";

/**
 * What a call is billed for, whatever happened to it (docs/API-NOTES.md "Pricing"): the meter every
 * charged call keeps while the provider answers. Rules, per attempt that reached a provider:
 *   answered in full   the provider's usage; without one, the prompt as quoted and the output counted
 *   cut short          (the client left, our deadline passed, the provider broke off) the prompt as
 *                      the provider reported it (else as quoted), and the larger of the output it
 *                      reported and the text counted, plus a margin for what was still in flight; a
 *                      model that thinks unseen (hiddenReasoning) and reported nothing yet is billed
 *                      its whole output cap
 *   given up on        (a route timeout; the next route answered) billed as cut short
 * Text is counted chunk by chunk with the answering model's tokenizer (each chunk at least one
 * token), which is never less than the tokens the provider streamed.
 */
export interface BilledAttempt {
  model: ModelSpec;
  usage: CallUsage;
  answeredBy: AnsweredBy | null;
  /** The counts are the provider's own report (not an estimate of ours). */
  reported: boolean;
}

/** Output tokens a cut stream may have produced after the last we saw: at least this many, or this share. */
const IN_FLIGHT_TOKENS = 16;
const IN_FLIGHT_SHARE = 0.1;

function attemptModel(quote: Quote, route: AnsweredBy | null): ModelSpec {
  return (route && findModel(route.model)) || quote.model;
}

/** The worst case of one attempt on a route model (the quote's, or the dearest's when that model was not quoted). */
export function quotedUsage(quote: Quote, model: ModelSpec): CallUsage {
  return quote.byModel[model.id] ?? quote.worst;
}

/** A cut chat attempt's bill. */
function cutChat(quote: Quote, model: ModelSpec, route: AnsweredBy | null, usage: TokenUsage | null, counted: number): BilledAttempt {
  const quoted = quotedUsage(quote, model);
  const cap = quoted.completionTokens ?? quote.maxOutputTokens ?? model.maxOutputTokens ?? 0;
  const seen = Math.max(usage?.completionTokens ?? 0, counted);
  let completion = seen + Math.max(IN_FLIGHT_TOKENS, Math.ceil(seen * IN_FLIGHT_SHARE));
  if (model.hiddenReasoning && usage === null) completion = cap;
  return {
    model,
    answeredBy: route,
    reported: false,
    usage: {
      promptTokens: usage && usage.promptTokens > 0 ? usage.promptTokens : (quoted.promptTokens ?? 0),
      cachedPromptTokens: usage?.cachedPromptTokens,
      completionTokens: Math.min(cap, completion),
    },
  };
}

export class ChatMeter {
  private route: AnsweredBy | null = null;
  private usage: (TokenUsage & { model?: string }) | null = null;
  /** The text chunks of the current attempt; counted only when a bill needs them (cut, or no usage). */
  private chunks: string[] = [];
  /** How many provider deltas each chunk gathers (one each unless an adapter merged a read's deltas). */
  private deltas: number[] = [];
  private readonly spent: BilledAttempt[] = [];

  constructor(private readonly quote: Quote) {}

  observe(part: StreamPart): void {
    switch (part.type) {
      case "text":
        this.chunks.push(part.text);
        this.deltas.push(part.chunks ?? 1);
        break;
      case "usage":
        // Running counts only grow; a provider that reports twice never lowers what was seen.
        this.usage = this.usage
          ? {
              ...part,
              promptTokens: Math.max(this.usage.promptTokens, part.promptTokens),
              completionTokens: Math.max(this.usage.completionTokens, part.completionTokens),
            }
          : part;
        break;
      case "route":
        // A new attempt: what came before belonged to one that failed before any text (billed via "spent", or not at all).
        this.route = { provider: part.provider, model: part.model };
        this.usage = null;
        this.chunks = [];
        this.deltas = [];
        break;
      case "spent": {
        const model = attemptModel(this.quote, part.route);
        this.spent.push(cutChat(this.quote, model, part.route, part.usage, 0));
        break;
      }
    }
  }

  get answeredBy(): AnsweredBy | null {
    return this.route;
  }

  /** The provider's usage of the current attempt, when it sent one. */
  get reported(): (TokenUsage & { model?: string }) | null {
    return this.usage;
  }

  /** The text of the current attempt, as received from the provider. */
  get text(): string {
    return this.chunks.join("");
  }

  /** Output tokens counted from the text received, chunk by chunk (each delta at least one token). */
  get countedTokens(): number {
    const tokenizer = attemptModel(this.quote, this.route).tokenizer;
    return this.chunks.reduce((n, chunk, i) => n + Math.max(this.deltas[i], countTokens(chunk, tokenizer)), 0);
  }

  /** Attempts given up on (route timeouts) that may be billed. */
  get spentAttempts(): BilledAttempt[] {
    return this.spent;
  }

  /** What the whole call is billed for: the current attempt ended in full (`complete`) or cut short, and the spent attempts. */
  bill(complete: boolean): BilledAttempt[] {
    const model = attemptModel(this.quote, this.route);
    if (!complete) return [...this.spent, cutChat(this.quote, model, this.route, this.usage, this.countedTokens)];
    const usage: CallUsage = this.usage
      ? {
          promptTokens: this.usage.promptTokens,
          cachedPromptTokens: this.usage.cachedPromptTokens,
          completionTokens: this.usage.completionTokens,
        }
      : { promptTokens: quotedUsage(this.quote, model).promptTokens ?? 0, completionTokens: this.countedTokens };
    return [...this.spent, { model, usage, answeredBy: this.route, reported: this.usage !== null }];
  }
}

/**
 * A call that answers at once and is not a chat (image, transcription, embeddings): answered, it is
 * billed at `used` on the route that answered; cut after the provider had it, at the quoted worst
 * case of its route; each spent attempt at its route's worst case.
 */
export function billOneShot(
  quote: Quote,
  answered: { route: AnsweredBy | null; usage: CallUsage; reported: boolean } | null,
  cut: AnsweredBy | null | undefined,
  spent: AnsweredBy[] = [],
): BilledAttempt[] {
  const worstAt = (route: AnsweredBy | null): BilledAttempt => {
    const model = attemptModel(quote, route);
    return { model, usage: quotedUsage(quote, model), answeredBy: route, reported: false };
  };
  const attempts = spent.map(worstAt);
  if (answered)
    attempts.push({
      model: attemptModel(quote, answered.route),
      usage: answered.usage,
      answeredBy: answered.route,
      reported: answered.reported,
    });
  else if (cut !== undefined) attempts.push(worstAt(cut));
  return attempts;
}
