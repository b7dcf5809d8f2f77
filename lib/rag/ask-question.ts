import { runChargedChat } from "@/lib/ai/charged-call";
import { startChargedStream, type StreamFraming } from "@/lib/ai/charged-stream";
import { persistExchange } from "./persist-exchange";
import { prepareAsk, type AskInput, type RagSource } from "./prepare-ask";

export type { AskInput, RagSource } from "./prepare-ask";

export interface AskAnswer {
  answer: string;
  conversationId: string;
  sources: RagSource[];
  chunksUsed: number;
  tokensEstimated: number;
  creditsUsed: number;
  creditsRemaining: number;
  model: string;
  retrieval: "hybrid" | "full-text";
}

/** Ledger metadata of an answer: which conversation, how much context, which retrieval. */
function answerMetadata(p: Awaited<ReturnType<typeof prepareAsk>>): Record<string, unknown> {
  return { chunksUsed: p.chunks.length, contextTokens: p.contextTokens, retrieval: p.mode };
}

/** Answers a question (non-streaming): retrieval, one chat completion, the charge settled, the exchange stored. */
export async function askQuestion(input: AskInput): Promise<AskAnswer> {
  const p = await prepareAsk(input);
  const { result, settled } = await runChargedChat({
    charge: p.charge,
    provider: p.provider,
    request: { model: p.model, messages: p.messages, maxTokens: p.maxOutputTokens },
    signal: input.signal,
    extraMicros: p.embeddingMicros,
    metadata: answerMetadata(p),
  });
  const model = result.model || p.model;
  await persistExchange(p, result.text, model, result.usage.completionTokens);
  return {
    answer: result.text,
    conversationId: p.conversation.id,
    sources: p.sources,
    chunksUsed: p.chunks.length,
    tokensEstimated: p.tokensEstimated,
    creditsUsed: settled.credits,
    creditsRemaining: settled.remaining,
    model,
    retrieval: p.mode,
  };
}

export interface AskStream {
  body: ReadableStream<Uint8Array>;
  conversationId: string;
  sources: RagSource[];
  chunksUsed: number;
  tokensEstimated: number;
  retrieval: "hybrid" | "full-text";
}

/**
 * Streams the answer through the charged-stream engine (lib/ai/charged-stream.ts): a provider failure
 * before any content answers a normal error status (credits refunded); then text chunks, the
 * settlement, the exchange stored (also a partial answer when the client went away), `event: meta`
 * with credits and the conversation, [DONE]. A provider failure after some text is charged for what
 * was delivered and stores nothing.
 */
export async function streamQuestion(input: AskInput, framing: StreamFraming): Promise<AskStream> {
  const p = await prepareAsk(input);
  const body = await startChargedStream({
    charge: p.charge,
    provider: p.provider,
    request: { model: p.model, messages: p.messages, maxTokens: p.maxOutputTokens },
    clientSignal: input.signal,
    framing,
    log: p.log,
    extraMicros: p.embeddingMicros,
    metadata: answerMetadata(p),
    onComplete: async (outcome) => {
      // A partial answer is kept when the client went away, not when the provider broke it off.
      if (outcome.text && !outcome.failed)
        await persistExchange(p, outcome.text, outcome.model, outcome.partial ? undefined : outcome.usage?.completionTokens, {
          aborted: outcome.partial,
        });
      return { conversationId: p.conversation.id, model: outcome.model, chunksUsed: p.chunks.length };
    },
  });
  return {
    body,
    conversationId: p.conversation.id,
    sources: p.sources,
    chunksUsed: p.chunks.length,
    tokensEstimated: p.tokensEstimated,
    retrieval: p.mode,
  };
}
