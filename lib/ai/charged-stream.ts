import { env } from "@/lib/config/env";
import { isAppError } from "@/lib/errors";
import { log as rootLog, type Logger } from "@/lib/log";
import { isAbortError } from "./providers/abort";
import { refundCharge, settleCharge, type AiCharge } from "./pricing/ai-charge";
import { chatFailure, clientGone } from "./charged-call";
import { ChatMeter } from "./pricing/meter";
import type { CallUsage } from "./pricing/price-call";
import type { AiProvider, ChatRequest, TokenUsage } from "./providers/provider";
import { failoverOf } from "./providers/upstream-error";

/** The SSE framing (lib/http/sse.ts), passed in by the route so domain code never imports lib/http. */
export interface StreamFraming {
  text(text: string): Uint8Array;
  meta(meta: Record<string, unknown>): Uint8Array;
  error(message: string): Uint8Array;
  done(): Uint8Array;
}

/** How a charged stream ended, for the caller's completion hook. */
export interface StreamOutcome {
  /** The text the provider sent. */
  text: string;
  /** What the provider reported, or null when the answer ended before its usage arrived. */
  usage: TokenUsage | null;
  /** The usage the charge was settled at: the provider's, or for a cut answer what the meter says it used. */
  billed: CallUsage;
  model: string;
  credits: number;
  remaining: number;
  /** Cut short: the client went away, the deadline passed or the provider failed after some text. */
  partial: boolean;
  /** Cut short by the provider failing (not by the client or our deadline). */
  failed: boolean;
}

export interface ChargedStreamInput {
  /** The reserved charge (lib/ai/pricing/ai-charge.ts openCharge). */
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
 * A streamed chat answer paid in credits (stream, generate-content, RAG, the /v1 stream), the one
 * engine for all:
 *   1. the charge was reserved by the caller (402 before any upstream call); a client already gone
 *      refunds it with no provider call;
 *   2. the upstream stream is opened and its first text awaited: a failure before any content
 *      answers a normal JSON error with its status, refunded in full when the provider never had
 *      the request or answered an error it does not bill, else settled at what it used (a stream
 *      abandoned while the model was still thinking pays for its prompt and that thinking);
 *   3. the provider's answer is then read to its end whatever the client does (a client that stops
 *      reading neither stalls nor outlives the upstream call): it is kept for the client, and the
 *      charge is settled as soon as the upstream call ends, at the provider's usage (counted when it
 *      sent none), then the completion hook runs, then `event: meta` {creditsUsed, creditsRemaining}
 *      and [DONE];
 *   4. the client going away (request signal or stream cancel) aborts the upstream request at once;
 *      a stream cut short (the client, our deadline: AI_TIMEOUT_MS over the whole answer) is settled
 *      at what the meter says the provider produced (lib/ai/pricing/meter.ts), and in flat mode at the flat
 *      price once any text reached the client; a provider failure mid-stream sends an error event
 *      (no meta, no [DONE]) and is charged what was used, at most the flat price;
 *   5. a client that never reads what was kept loses the connection after AI_TIMEOUT_MS.
 */
export async function startChargedStream(input: ChargedStreamInput): Promise<ReadableStream<Uint8Array>> {
  const log = input.log ?? rootLog;
  const { framing, charge } = input;
  if (input.clientSignal.aborted) {
    await refundCharge(charge, "client_gone");
    throw clientGone();
  }
  const upstream = new AbortController();
  const onClientAbort = () => upstream.abort();
  input.clientSignal.addEventListener("abort", onClientAbort, { once: true });
  const detach = () => input.clientSignal.removeEventListener("abort", onClientAbort);

  const meter = new ChatMeter(charge.quote);
  const fallbackModel = (input.request.model as string | undefined) ?? charge.quote.model.id;
  const iterator = input.provider.streamChat({ ...input.request, signal: upstream.signal, paced: true })[Symbol.asyncIterator]();
  let first: string | null = null;
  let ended = false;

  // Wait for the first piece of content so early failures answer a proper status.
  try {
    for (;;) {
      const r = await iterator.next();
      if (r.done) {
        ended = true;
        break;
      }
      meter.observe(r.value);
      if (r.value.type === "text" && r.value.text) {
        first = r.value.text;
        break;
      }
    }
  } catch (error) {
    detach();
    const outcome = chatFailure(meter, error, input.extraMicros);
    const reason = isAppError(error) ? error.code : isAbortError(error) ? "client_gone" : "failed";
    if (outcome) await settleCharge(charge, outcome, { metadata: { ...input.metadata, failure: reason }, background: true });
    else await refundCharge(charge, reason);
    throw isAbortError(error) ? clientGone() : error;
  }

  const buffer: Uint8Array[] = [];
  let finished = false;
  let closed = false;
  let delivered = false;
  let wake: (() => void) | null = null;
  let controllerRef: ReadableStreamDefaultController<Uint8Array> | null = null;
  const push = (chunk: Uint8Array) => {
    buffer.push(chunk);
    wake?.();
    wake = null;
  };
  const finish = () => {
    finished = true;
    wake?.();
    wake = null;
    // A client that never reads what was kept: the connection is dropped after the deadline.
    const timer = setTimeout(() => {
      if (closed) return;
      closed = true;
      buffer.length = 0;
      controllerRef?.error(new Error("the client did not read the answer"));
    }, env().AI_TIMEOUT_MS);
    timer.unref?.();
  };

  /**
   * How the upstream call ended: complete; cut by the client (nothing more to send) or by our
   * deadline (an error event): the flat price once text reached the client; or failed by the
   * provider (an error event): what it used, at most the flat price.
   */
  const settleAndClose = async (how: "complete" | "client" | "deadline" | "provider", failure?: unknown) => {
    detach();
    const complete = how === "complete";
    const outcome = {
      attempts: meter.bill(complete),
      complete,
      delivered: delivered && how !== "provider",
      extraMicros: input.extraMicros,
    };
    const billed = outcome.attempts[outcome.attempts.length - 1].usage;
    const model = meter.reported?.model ?? fallbackModel;
    const settled = await settleCharge(charge, outcome, { model, metadata: { ...input.metadata, ...(complete ? {} : { delivered }) } });
    if (how === "deadline" || how === "provider") {
      const message = isAppError(failure) && failure.code !== "internal" ? failure.message : "Internal server error";
      push(framing.error(message));
      return finish();
    }
    const result: StreamOutcome = {
      text: meter.text,
      usage: meter.reported,
      billed,
      model,
      credits: settled.credits,
      remaining: settled.remaining,
      partial: !complete,
      failed: false,
    };
    let extra: Record<string, unknown> | void = undefined;
    try {
      extra = await input.onComplete?.(result);
    } catch (error) {
      log.error("stream completion hook failed", { operation: charge.operation, error });
    }
    if (complete) {
      push(framing.meta({ creditsUsed: settled.credits, creditsRemaining: settled.remaining, ...(extra ?? {}) }));
      push(framing.done());
    }
    finish();
  };

  // The provider's answer is read to its end at its own pace, whatever the client does.
  const pump = async () => {
    try {
      if (first !== null) push(framing.text(first));
      while (!ended) {
        const r = await iterator.next();
        if (r.done) break;
        meter.observe(r.value);
        if (r.value.type === "text" && r.value.text) push(framing.text(r.value.text));
      }
      await settleAndClose("complete");
    } catch (error) {
      const how = isAbortError(error) || upstream.signal.aborted ? "client" : failoverOf(error) === "timeout" ? "deadline" : "provider";
      if (how === "provider" && (!isAppError(error) || error.code === "internal"))
        log.error("stream failed", { operation: charge.operation, error });
      else if (how !== "client")
        log.warn("the stream was cut short; charged for what the provider produced", {
          operation: charge.operation,
          error: (error as Error).message,
        });
      await settleAndClose(how, error).catch((e) => log.error("settling a cut stream failed", { error: e }));
    }
  };
  void pump();

  return new ReadableStream<Uint8Array>({
    start(controller) {
      controllerRef = controller;
    },
    async pull(controller) {
      while (buffer.length === 0 && !finished && !closed) await new Promise<void>((resolve) => (wake = resolve));
      if (closed) return;
      if (buffer.length > 0) {
        delivered = true;
        while (buffer.length > 0) controller.enqueue(buffer.shift() as Uint8Array);
        return;
      }
      closed = true;
      try {
        controller.close();
      } catch {
        // already cancelled
      }
    },
    cancel() {
      // The client disconnected: stop the upstream request now; the pump settles what it used.
      closed = true;
      buffer.length = 0;
      upstream.abort();
      wake?.();
    },
  });
}
