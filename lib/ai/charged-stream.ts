import { AppError, isAppError } from "@/lib/errors";
import { log as rootLog, type Logger } from "@/lib/log";
import { isAbortError } from "./abort";
import { refundCharge, settleCharge, type AiCharge } from "./ai-charge";
import type { CallUsage } from "./price-call";
import type { AiProvider, AnsweredBy, ChatRequest, StreamPart, TokenUsage } from "./provider";
import { countTokens } from "./tokens";

/** The SSE framing (lib/http/sse.ts), passed in by the route so domain code never imports lib/http. */
export interface StreamFraming {
  text(text: string): Uint8Array;
  meta(meta: Record<string, unknown>): Uint8Array;
  error(message: string): Uint8Array;
  done(): Uint8Array;
}

/** How a charged stream ended, for the caller's completion hook. */
export interface StreamOutcome {
  /** The text delivered to the client. */
  text: string;
  /** What the provider reported, or null when the answer ended before its usage arrived. */
  usage: TokenUsage | null;
  /** The usage the charge was settled at: the provider's, or for a cut answer what was delivered. */
  billed: CallUsage;
  model: string;
  credits: number;
  remaining: number;
  /** Cut short: the client went away or the provider failed after some text. */
  partial: boolean;
  /** Cut short by the provider failing (not by the client). */
  failed: boolean;
}

export interface ChargedStreamInput {
  /** The reserved charge (lib/ai/ai-charge.ts openCharge). */
  charge: AiCharge;
  provider: AiProvider;
  request: ChatRequest;
  clientSignal: AbortSignal;
  framing: StreamFraming;
  log?: Logger;
  /**
   * Runs once the charge is settled, before the closing meta event (persisting a conversation, say);
   * what it returns is added to the meta event. Never fails the stream: its errors are logged.
   */
  onComplete?: (outcome: StreamOutcome) => Promise<Record<string, unknown> | void>;
  /** Upstream cost besides the chat's own usage (a RAG question's embedding), in USD millionths. */
  extraMicros?: number;
  /** Ledger metadata added at settlement. */
  metadata?: Record<string, unknown>;
}

/**
 * A streamed chat answer paid in credits (stream, generate-content, RAG), the one engine for all:
 *   1. the charge was reserved by the caller (402 before any upstream call);
 *   2. the upstream stream is opened and its first text awaited: a failure or refusal before any
 *      content refunds and throws (the client gets a normal JSON error with its status);
 *   3. text chunks stream out; at the end the charge is settled on the provider's usage (counted
 *      from the prompt and the text when the provider sent none), the completion hook runs, then
 *      `event: meta` {creditsUsed, creditsRemaining, ...} and [DONE];
 *   4. cut short after content (the client going away, the provider failing): settled at what was
 *      delivered (never the whole worst case, never zero), and a provider failure sends an error
 *      event (no meta, no [DONE]) before closing.
 * The client going away (request signal or stream cancel) aborts the upstream request.
 */
export async function startChargedStream(input: ChargedStreamInput): Promise<ReadableStream<Uint8Array>> {
  const log = input.log ?? rootLog;
  const { framing, charge } = input;
  const upstream = new AbortController();
  const onClientAbort = () => upstream.abort();
  if (input.clientSignal.aborted) upstream.abort();
  else input.clientSignal.addEventListener("abort", onClientAbort, { once: true });
  const detach = () => input.clientSignal.removeEventListener("abort", onClientAbort);

  const iterator = input.provider.streamChat({ ...input.request, signal: upstream.signal })[Symbol.asyncIterator]();
  let usage: Extract<StreamPart, { type: "usage" }> | null = null;
  let answeredBy: AnsweredBy | null = null;
  let delivered = "";
  let first: string | null = null;

  // Wait for the first piece of content so early failures answer a proper status.
  try {
    for (;;) {
      const r = await iterator.next();
      if (r.done) break;
      if (r.value.type === "usage") usage = r.value;
      else if (r.value.type === "route") answeredBy = r.value;
      else if (r.value.text) {
        first = r.value.text;
        break;
      }
    }
  } catch (error) {
    detach();
    await refundCharge(charge, isAppError(error) ? error.code : "aborted_before_content");
    if (isAbortError(error)) throw new AppError("bad_request", "The request was aborted by the client");
    throw error;
  }

  // Settled exactly once, whichever of the end, a failure or a cancel comes first.
  let outcome: Promise<{ meta: Record<string, unknown> }> | null = null;
  const complete = (partial: boolean, failed = false) =>
    (outcome ??= (async () => {
      detach();
      const model = usage?.model ?? (input.request.model as string);
      const billed: CallUsage = usage && !partial ? usage : countedUsage(charge, delivered, usage);
      const settled = await settleCharge(charge, billed, {
        partial,
        model,
        answeredBy: answeredBy ?? undefined,
        extraMicros: input.extraMicros,
        metadata: { ...input.metadata, ...(partial ? { delivered: delivered.length > 0 } : {}) },
      });
      const result: StreamOutcome = { text: delivered, usage, billed, model, credits: settled.credits, remaining: settled.remaining, partial, failed };
      let extra: Record<string, unknown> | void = undefined;
      try {
        extra = await input.onComplete?.(result);
      } catch (error) {
        log.error("stream completion hook failed", { operation: charge.operation, error });
      }
      return { meta: { creditsUsed: settled.credits, creditsRemaining: settled.remaining, ...(extra ?? {}) } };
    })());

  let closed = false;
  const close = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (closed) return;
    closed = true;
    try {
      controller.close();
    } catch {
      // already cancelled
    }
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (closed) return;
      if (first !== null) {
        delivered += first;
        controller.enqueue(framing.text(first));
        first = null;
        return;
      }
      try {
        for (;;) {
          const r = await iterator.next();
          if (r.done) {
            const { meta } = await complete(false);
            controller.enqueue(framing.meta(meta));
            controller.enqueue(framing.done());
            return close(controller);
          }
          if (r.value.type === "usage") {
            usage = r.value;
            continue;
          }
          if (r.value.type === "route") {
            answeredBy = r.value;
            continue;
          }
          if (r.value.text) {
            delivered += r.value.text;
            controller.enqueue(framing.text(r.value.text));
            return;
          }
        }
      } catch (error) {
        if (isAbortError(error) || upstream.signal.aborted) {
          // The client went away mid-stream: charged for what it was sent.
          await complete(true).catch((e) => log.error("settling a cut stream failed", { error: e }));
          return close(controller);
        }
        if (!isAppError(error) || error.code === "internal") log.error("stream failed", { operation: charge.operation, error });
        else log.warn("the provider failed mid-stream; charged for what was delivered", { operation: charge.operation, error: error.message });
        await complete(true, true).catch((e) => log.error("settling a cut stream failed", { error: e }));
        const message = isAppError(error) && error.code !== "internal" ? error.message : "Internal server error";
        controller.enqueue(framing.error(message));
        close(controller);
      }
    },
    async cancel() {
      // The response stream was cancelled (client disconnected): stop the upstream request.
      upstream.abort();
      closed = true;
      await iterator.return?.().catch(() => undefined);
      await complete(true).catch((e) => log.error("settling a cancelled stream failed", { error: e }));
    },
  });
}

/** A cut answer's usage: the prompt as quoted, the delivered text counted (with the model's margin). */
function countedUsage(charge: AiCharge, delivered: string, reported: TokenUsage | null): CallUsage {
  const margin = charge.quote.model.tokenizerMargin ?? 1;
  return {
    promptTokens: reported?.promptTokens ?? charge.quote.worst.promptTokens ?? 0,
    cachedPromptTokens: reported?.cachedPromptTokens,
    completionTokens: Math.max(reported?.completionTokens ?? 0, Math.ceil(countTokens(delivered) * margin)),
  };
}
