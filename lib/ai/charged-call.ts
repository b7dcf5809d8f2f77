import { AppError } from "@/lib/errors";
import { isAbortError } from "./providers/abort";
import { refundCharge, settleCharge, type AiCharge, type CallOutcome, type SettledCharge, type UsagePrice } from "./pricing/ai-charge";
import { billOneShot, ChatMeter } from "./pricing/meter";
import type { Quote } from "./pricing/quote-call";
import { attemptsOfError } from "./providers/router";
import type { AiProvider, ChatRequest, ChatResult } from "./providers/provider-types";
import { reachOf } from "./providers/upstream-error";

/** The answer to a client that went away (nobody reads it; the logs and metrics do). */
export function clientGone(): AppError {
  return new AppError("bad_request", "The request was aborted by the client");
}

export interface ChargedCallInput<T> {
  /** The reserved charge (lib/ai/pricing/ai-charge.ts openCharge). */
  charge: AiCharge;
  /** The client's signal: its abort aborts the provider call at once. */
  signal?: AbortSignal;
  /** The provider call. */
  call: (signal: AbortSignal | undefined) => Promise<T>;
  /** What the answered call is billed for. */
  answered: (value: T) => CallOutcome;
  /** What a failed call is billed for (lib/ai/pricing/meter.ts), or null when the provider billed nothing. */
  failed: (error: unknown) => CallOutcome | null;
  /**
   * Settlement options: ledger metadata, the model the provider named, whether the answer waits for the
   * statement, and a price of its own (a batch: the sum of its items', each priced by its own quote).
   */
  settle?: (value: T) => { metadata?: Record<string, unknown>; model?: string; background?: boolean; price?: UsagePrice };
}

/**
 * The one engine for charged calls that answer at once (a JSON chat, a RAG answer, an image, a
 * transcription, embeddings), the twin of lib/ai/charged-stream.ts:
 *   1. the charge was reserved by the caller (402 before any upstream call);
 *   2. a client already gone refunds it all, with no provider call;
 *   3. the provider is called with the client's signal (its abort aborts the upstream request);
 *   4. answered: settled at `answered`'s outcome (flat: the flat price; metered: the usage's cost);
 *   5. failed: if the provider had the request (reach "received", or an earlier attempt given up on)
 *      the charge is settled at what `failed` says it used; else refunded in full. The error is
 *      thrown on (a client that left: "aborted by the client").
 */
export async function runChargedCall<T>(input: ChargedCallInput<T>): Promise<{ value: T; settled: SettledCharge }> {
  const { charge } = input;
  if (input.signal?.aborted) {
    await refundCharge(charge, "client_gone");
    throw clientGone();
  }
  let value: T;
  try {
    value = await input.call(input.signal);
  } catch (error) {
    const outcome = input.failed(error);
    const reason = error instanceof AppError ? error.code : isAbortError(error) ? "client_gone" : "failed";
    if (outcome && (outcome.attempts.length > 0 || (outcome.extraMicros ?? 0) > 0)) {
      await settleCharge(charge, outcome, { metadata: { failure: reason }, background: true });
    } else await refundCharge(charge, reason);
    throw isAbortError(error) ? clientGone() : error;
  }
  const settled = await settleCharge(charge, input.answered(value), { background: true, ...input.settle?.(value) });
  return { value, settled };
}

/**
 * A step a charged call takes after its charge is reserved and before its provider call (a RAG
 * question's retrieval, which may embed the question): when it fails, the charge is refunded in full
 * (nothing was answered) and the error thrown on.
 */
export async function beforeChargedCall<T>(charge: AiCharge, reason: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    await refundCharge(charge, reason);
    throw error;
  }
}

/**
 * A charged chat answered as one JSON answer: streamed upstream through the meter (so a cut call
 * is billed for what the provider produced) and assembled here.
 */
export async function runChargedChat(input: {
  charge: AiCharge;
  provider: AiProvider;
  request: ChatRequest;
  signal?: AbortSignal;
  /** Upstream cost besides the chat (a RAG question's embedding), USD millionths. */
  extraMicros?: number;
  metadata?: Record<string, unknown>;
}): Promise<{ result: ChatResult; settled: SettledCharge }> {
  const meter = new ChatMeter(input.charge.quote);
  const fallbackModel = (input.request.model as string | undefined) ?? input.charge.quote.model.id;
  const { value, settled } = await runChargedCall({
    charge: input.charge,
    signal: input.signal,
    call: async (signal) => {
      for await (const part of input.provider.streamChat({ ...input.request, signal })) meter.observe(part);
      return meterResult(meter, fallbackModel);
    },
    answered: () => ({ attempts: meter.bill(true), complete: true, extraMicros: input.extraMicros }),
    failed: (error) => chatFailure(meter, error, input.extraMicros),
    settle: (result) => ({ model: result.model, metadata: input.metadata }),
  });
  return { result: value, settled };
}

/** A chat attempt that failed: billed as cut when the provider had it, else only the attempts given up on. */
export function chatFailure(meter: ChatMeter, error: unknown, extraMicros?: number): CallOutcome | null {
  if (reachOf(error) === "received") return { attempts: meter.bill(false), complete: false, extraMicros };
  if (meter.spentAttempts.length || extraMicros) return { attempts: meter.spentAttempts, complete: false, extraMicros };
  return null;
}

/** The answer a meter saw: its text, the provider's usage (or the counted estimate), the answering route. */
export function meterResult(meter: ChatMeter, fallbackModel: string): ChatResult {
  const reported = meter.reported;
  const [last] = meter.bill(true).slice(-1);
  return {
    text: meter.text,
    model: reported?.model ?? fallbackModel,
    usage: {
      promptTokens: last.usage.promptTokens ?? 0,
      completionTokens: last.usage.completionTokens ?? 0,
      ...(last.usage.cachedPromptTokens ? { cachedPromptTokens: last.usage.cachedPromptTokens } : {}),
    },
    usageReported: reported !== null,
    ...(meter.answeredBy ? { route: meter.answeredBy } : {}),
  };
}

/**
 * A call that is not a chat (image, transcription, embeddings) failed: when the provider had it,
 * its route's worst case; each attempt given up on, its route's; nothing when the provider never
 * had it or answered an error.
 */
export function oneShotFailure(quote: Quote, error: unknown): CallOutcome | null {
  const { spent, route } = attemptsOfError(error);
  const received = reachOf(error) === "received";
  if (!received && spent.length === 0) return null;
  return { attempts: billOneShot(quote, null, received ? route : undefined, spent), complete: false };
}
