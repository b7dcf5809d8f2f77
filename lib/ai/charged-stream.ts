import { refundReservation, reserveCredits, settleReservation, type Reservation } from "@/lib/credits";
import { AppError, isAppError } from "@/lib/errors";
import { log as rootLog, type Logger } from "@/lib/log";
import { isAbortError } from "./abort";
import type { AiProvider, ChatRequest, StreamPart } from "./provider";

/** The SSE framing (lib/http/sse.ts), passed in by the route so domain code never imports lib/http. */
export interface StreamFraming {
  text(text: string): Uint8Array;
  meta(meta: Record<string, unknown>): Uint8Array;
  error(message: string): Uint8Array;
  done(): Uint8Array;
}

export interface ChargedStream {
  body: ReadableStream<Uint8Array>;
  reservation: Reservation;
}

/**
 * A streamed chat answer paid in credits (stream and generate-content):
 *   1. reserve `cost` (402 before any upstream call);
 *   2. open the upstream stream and wait for its first text: a failure or refusal before any content
 *      refunds and throws (the client gets a normal JSON error with its status);
 *   3. stream text chunks, then `event: meta` {creditsUsed, creditsRemaining}, then [DONE];
 *      a failure after content started refunds and sends an error event before closing.
 * The client going away (request signal or stream cancel) aborts the upstream request. Before the
 * first chunk that refunds; once content was delivered the charge stands.
 */
export async function startChargedStream(input: {
  userId: string;
  cost: number;
  operation: string;
  provider: AiProvider;
  request: ChatRequest;
  clientSignal: AbortSignal;
  framing: StreamFraming;
  metadata?: Record<string, unknown>;
  log?: Logger;
}): Promise<ChargedStream> {
  const log = input.log ?? rootLog;
  const { framing } = input;
  const reservation = await reserveCredits({
    userId: input.userId,
    amount: input.cost,
    operation: input.operation,
    metadata: { model: input.request.model, provider: input.provider.name, ...input.metadata },
  });
  const upstream = new AbortController();
  const onClientAbort = () => upstream.abort();
  if (input.clientSignal.aborted) upstream.abort();
  else input.clientSignal.addEventListener("abort", onClientAbort, { once: true });
  const detach = () => input.clientSignal.removeEventListener("abort", onClientAbort);

  const iterator = input.provider.streamChat({ ...input.request, signal: upstream.signal })[Symbol.asyncIterator]();
  const pending: Uint8Array[] = [];
  let usage: Extract<StreamPart, { type: "usage" }> | null = null;
  let delivered = false;

  // Wait for the first piece of content so early failures answer a proper status.
  try {
    for (;;) {
      const r = await iterator.next();
      if (r.done) break;
      if (r.value.type === "usage") usage = r.value;
      else if (r.value.text) {
        pending.push(framing.text(r.value.text));
        break;
      }
    }
  } catch (error) {
    detach();
    await refundReservation(reservation, { reason: isAppError(error) ? error.code : "aborted_before_content" });
    if (isAbortError(error)) throw new AppError("bad_request", "The request was aborted by the client");
    throw error;
  }

  let finished = false;
  const finish = async (controller: ReadableStreamDefaultController<Uint8Array>) => {
    finished = true;
    detach();
    await settleReservation(reservation, {
      model: usage?.model ?? input.request.model,
      promptTokens: usage?.promptTokens ?? 0,
      completionTokens: usage?.completionTokens ?? 0,
    });
    controller.enqueue(framing.meta({ creditsUsed: reservation.charged ? input.cost : 0, creditsRemaining: reservation.remaining }));
    controller.enqueue(framing.done());
    controller.close();
  };

  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (finished) return;
      if (pending.length) {
        delivered = true;
        controller.enqueue(pending.shift() as Uint8Array);
        return;
      }
      try {
        for (;;) {
          const r = await iterator.next();
          if (r.done) return await finish(controller);
          if (r.value.type === "usage") {
            usage = r.value;
            continue;
          }
          if (r.value.text) {
            controller.enqueue(framing.text(r.value.text));
            return;
          }
        }
      } catch (error) {
        finished = true;
        detach();
        if (isAbortError(error) || upstream.signal.aborted) {
          // The client went away mid-stream: content was delivered, the charge stands.
          await settleReservation(reservation, { aborted: true, model: input.request.model });
          try {
            controller.close();
          } catch {
            // already cancelled
          }
          return;
        }
        await refundReservation(reservation, { reason: isAppError(error) ? error.code : "stream_failed" });
        if (!isAppError(error) || error.code === "internal") log.error("stream failed", { operation: input.operation, error });
        const message = isAppError(error) && error.code !== "internal" ? error.message : "Internal server error";
        controller.enqueue(framing.error(message));
        controller.close();
      }
    },
    async cancel() {
      // The response stream was cancelled (client disconnected): stop the upstream request.
      detach();
      upstream.abort();
      if (!finished) {
        finished = true;
        await iterator.return?.().catch(() => undefined);
        await settleReservation(reservation, { aborted: true, delivered, model: input.request.model }).catch(() => undefined);
      }
    },
  });
  return { body, reservation };
}
