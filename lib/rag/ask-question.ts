import { randomUUID } from "node:crypto";
import { isAbortError } from "@/lib/ai/abort";
import type { StreamFraming } from "@/lib/ai/charged-stream";
import { aiProvider, type AiProvider, type ChatMessage, type StreamPart } from "@/lib/ai/provider";
import { aiSettings } from "@/lib/ai/settings";
import { refundReservation, reserveCredits, settleReservation, type Reservation } from "@/lib/credits";
import { db } from "@/lib/db/client";
import { AppError, isAppError, notFound } from "@/lib/errors";
import { log as rootLog, type Logger } from "@/lib/log";
import { buildMessages, estimatePromptTokens } from "./build-prompt";
import { retrievalUsesEmbeddings, retrieveChunks, type RetrievedChunk } from "./search-chunks";
import { RAG, ragCreditCost } from "./settings";
import { countTokens } from "./tokens";

export interface RagSource {
  title: string;
  /** Uploaded file of the asking user (their private documents). */
  fileId?: string;
  /** Knowledge file path, relative to the knowledge folder (shared documents). */
  path?: string;
  excerpt: string;
  score: number;
}

export interface AskInput {
  userId: string;
  question: string;
  conversationId?: string;
  /** The client's request signal: aborting it aborts the upstream call. */
  signal: AbortSignal;
  log?: Logger;
}

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

interface Prepared {
  input: AskInput;
  log: Logger;
  provider: AiProvider;
  model: string;
  conversation: { id: string; isNew: boolean; title: string; tier: string };
  chunks: RetrievedChunk[];
  mode: "hybrid" | "full-text";
  sources: RagSource[];
  messages: ChatMessage[];
  contextTokens: number;
  tokensEstimated: number;
  cost: number;
  reservation: Reservation;
}

export function conversationTitle(question: string): string {
  const flat = question.replace(/\s+/g, " ").trim();
  return flat.length > RAG.titleMaxChars ? `${flat.slice(0, RAG.titleMaxChars - 1)}…` : flat;
}

function toSource(chunk: RetrievedChunk): RagSource {
  const flat = chunk.content.replace(/\s+/g, " ").trim();
  return {
    title: chunk.title,
    ...(chunk.fileId ? { fileId: chunk.fileId } : { path: chunk.path ?? undefined }),
    excerpt: flat.length > RAG.excerptChars ? `${flat.slice(0, RAG.excerptChars - 1)}…` : flat,
    score: Math.round(chunk.score * 10_000) / 10_000,
  };
}

/** The last messages of a conversation, oldest first, within the history token budget. */
async function loadHistory(conversationId: string): Promise<{ messages: ChatMessage[]; tokens: number }> {
  const prisma = await db();
  const rows = await prisma.ragMessage.findMany({
    where: { conversationId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: RAG.historyMessages,
    select: { role: true, content: true },
  });
  const messages: ChatMessage[] = [];
  let tokens = 0;
  for (const row of rows) {
    const t = countTokens(row.content);
    if (tokens + t > RAG.historyTokens) break;
    tokens += t;
    messages.unshift({ role: row.role === "assistant" ? "assistant" : "user", content: row.content });
  }
  return { messages, tokens };
}

/**
 * Everything before the model call: the conversation (owner only), the provider, retrieval within
 * the user's scope, the prompt, and the credit reservation. Credits are reserved before any upstream
 * call: when retrieval needs no upstream call (full-text only) the exact cost is reserved after
 * retrieval; when the question must be embedded first, the cost ceiling of the maximum context is
 * reserved before embedding and the unused part is returned once the answer is complete.
 */
async function prepareAsk(input: AskInput): Promise<Prepared> {
  const log = input.log ?? rootLog;
  const prisma = await db();
  let conversation: Prepared["conversation"];
  let history: { messages: ChatMessage[]; tokens: number } = { messages: [], tokens: 0 };
  if (input.conversationId) {
    const found = await prisma.ragConversation.findFirst({
      where: { id: input.conversationId, userId: input.userId },
      select: { id: true, title: true, tier: true },
    });
    if (!found) throw notFound("Conversation");
    conversation = { ...found, isNew: false };
    history = await loadHistory(found.id);
  } else {
    const user = await prisma.user.findUnique({ where: { id: input.userId }, select: { tier: true } });
    if (!user) throw notFound("User");
    conversation = { id: randomUUID(), isNew: true, title: conversationTitle(input.question), tier: user.tier };
  }

  const provider = aiProvider();
  const model = aiSettings().chatModel;
  const operation = "rag_ask";
  const metadata = { conversationId: conversation.id, model, provider: provider.name };

  let reservation: Reservation | null = null;
  let retrieval: Awaited<ReturnType<typeof retrieveChunks>>;
  if (await retrievalUsesEmbeddings()) {
    const ceiling = ragCreditCost(RAG.topK * RAG.chunkTokens + history.tokens);
    reservation = await reserveCredits({ userId: input.userId, amount: ceiling, operation, metadata });
    try {
      retrieval = await retrieveChunks(input.question, { userId: input.userId, signal: input.signal });
    } catch (error) {
      await refundReservation(reservation, { reason: "retrieval_failed" });
      throw error;
    }
  } else {
    retrieval = await retrieveChunks(input.question, { userId: input.userId, signal: input.signal });
  }
  const contextTokens = retrieval.chunks.reduce((sum, c) => sum + c.tokens, 0) + history.tokens;
  let cost = ragCreditCost(contextTokens);
  if (reservation) cost = Math.min(cost, reservation.amount);
  else reservation = await reserveCredits({ userId: input.userId, amount: cost, operation, metadata });

  const messages = buildMessages(input.question, retrieval.chunks, history.messages);
  return {
    input,
    log,
    provider,
    model,
    conversation,
    chunks: retrieval.chunks,
    mode: retrieval.mode,
    sources: retrieval.chunks.map(toSource),
    messages,
    contextTokens,
    tokensEstimated: estimatePromptTokens(messages),
    cost,
    reservation,
  };
}

/** Settles the charge (returning the unused part of a ceiling reservation) and persists both messages. */
async function completeAsk(
  p: Prepared,
  answer: string,
  usage: { model: string; promptTokens: number; completionTokens: number } | null,
  extra: Record<string, unknown> = {},
): Promise<{ creditsUsed: number; creditsRemaining: number; model: string }> {
  const model = usage?.model || p.model;
  await settleReservation(p.reservation, {
    model,
    promptTokens: usage?.promptTokens ?? p.tokensEstimated,
    completionTokens: usage?.completionTokens ?? countTokens(answer),
    chunksUsed: p.chunks.length,
    contextTokens: p.contextTokens,
    retrieval: p.mode,
    ...extra,
  });
  let remaining = p.reservation.remaining;
  if (p.reservation.charged && p.reservation.amount > p.cost) {
    remaining = (await refundReservation(p.reservation, { amount: p.reservation.amount - p.cost, reason: "unused_context" })).remaining;
  }
  try {
    await persistExchange(p, answer, model, usage?.completionTokens);
  } catch (error) {
    // The answer was delivered and paid; a lost transcript is logged, not turned into an error.
    p.log.error("rag: persisting the conversation failed", { conversationId: p.conversation.id, error });
  }
  return { creditsUsed: p.reservation.charged ? p.cost : 0, creditsRemaining: remaining, model };
}

/** Creates the conversation (if new) and both messages in one transaction. */
async function persistExchange(p: Prepared, answer: string, model: string, completionTokens?: number): Promise<void> {
  const prisma = await db();
  const { conversation, input } = p;
  const now = Date.now();
  await prisma.$transaction(async (tx) => {
    if (conversation.isNew) {
      await tx.ragConversation.create({
        data: { id: conversation.id, userId: input.userId, title: conversation.title, tier: conversation.tier, createdAt: new Date(now) },
      });
    } else {
      const { count } = await tx.ragConversation.updateMany({ where: { id: conversation.id, userId: input.userId }, data: { updatedAt: new Date(now) } });
      if (count === 0) return; // deleted while the answer was produced
    }
    await tx.ragMessage.create({
      data: { conversationId: conversation.id, role: "user", content: input.question, tokens: countTokens(input.question), model, createdAt: new Date(now) },
    });
    await tx.ragMessage.create({
      data: {
        conversationId: conversation.id,
        role: "assistant",
        content: answer,
        tokens: completionTokens || countTokens(answer),
        model,
        sources: p.sources as unknown as object,
        createdAt: new Date(now + 1),
      },
    });
  });
}

async function refundAfterFailure(p: Prepared, error: unknown): Promise<void> {
  try {
    await refundReservation(p.reservation, { reason: isAppError(error) ? error.code : isAbortError(error) ? "aborted" : "provider_failed" });
  } catch (refundError) {
    p.log.error("rag: refund after a failed answer failed", { reservationId: p.reservation.id, error: refundError });
  }
}

/** Answers a question (non-streaming): retrieval, one chat completion, persistence, the charge. */
export async function askQuestion(input: AskInput): Promise<AskAnswer> {
  const p = await prepareAsk(input);
  let result;
  try {
    result = await p.provider.chat({ model: p.model, messages: p.messages, signal: input.signal });
  } catch (error) {
    await refundAfterFailure(p, error);
    if (isAbortError(error)) throw new AppError("bad_request", "The request was aborted by the client");
    throw error;
  }
  const credits = await completeAsk(p, result.text, { model: result.model, ...result.usage });
  return {
    answer: result.text,
    conversationId: p.conversation.id,
    sources: p.sources,
    chunksUsed: p.chunks.length,
    tokensEstimated: p.tokensEstimated,
    creditsUsed: credits.creditsUsed,
    creditsRemaining: credits.creditsRemaining,
    model: credits.model,
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
 * Streams the answer: waits for the first text so a provider failure before any content answers a
 * normal error status (credits refunded); then text chunks, `event: meta` with credits, [DONE].
 * A failure after content started refunds and sends an error event. The client going away aborts
 * the upstream call; once content was delivered the charge stands and the partial answer is kept.
 */
export async function streamQuestion(input: AskInput, framing: StreamFraming): Promise<AskStream> {
  const p = await prepareAsk(input);
  const upstream = new AbortController();
  const onAbort = () => upstream.abort();
  if (input.signal.aborted) upstream.abort();
  else input.signal.addEventListener("abort", onAbort, { once: true });
  const detach = () => input.signal.removeEventListener("abort", onAbort);

  const iterator = p.provider.streamChat({ model: p.model, messages: p.messages, signal: upstream.signal })[Symbol.asyncIterator]();
  let usage: Extract<StreamPart, { type: "usage" }> | null = null;
  let answer = "";
  let first: string | null = null;
  try {
    for (;;) {
      const r = await iterator.next();
      if (r.done) break;
      if (r.value.type === "usage") usage = r.value;
      else if (r.value.text) {
        first = r.value.text;
        break;
      }
    }
  } catch (error) {
    detach();
    await refundAfterFailure(p, error);
    if (isAbortError(error)) throw new AppError("bad_request", "The request was aborted by the client");
    throw error;
  }

  let finished = false;
  // The charge is settled (or refunded) exactly once, whichever of finish, failure or cancel comes first.
  let outcome: Promise<unknown> | null = null;
  const completeOnce = (extra?: Record<string, unknown>) =>
    (outcome ??= completeAsk(p, answer, usage, extra)) as ReturnType<typeof completeAsk>;
  const finish = async (controller: ReadableStreamDefaultController<Uint8Array>) => {
    finished = true;
    detach();
    const credits = await completeOnce();
    controller.enqueue(
      framing.meta({
        creditsUsed: credits.creditsUsed,
        creditsRemaining: credits.creditsRemaining,
        conversationId: p.conversation.id,
        model: credits.model,
        chunksUsed: p.chunks.length,
      }),
    );
    controller.enqueue(framing.done());
    controller.close();
  };

  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (finished) return;
      if (first !== null) {
        answer += first;
        controller.enqueue(framing.text(first));
        first = null;
        return;
      }
      try {
        for (;;) {
          const r = await iterator.next();
          if (r.done) return await finish(controller);
          if (r.value.type === "usage") usage = r.value;
          else if (r.value.text) {
            answer += r.value.text;
            controller.enqueue(framing.text(r.value.text));
            return;
          }
        }
      } catch (error) {
        finished = true;
        detach();
        if (isAbortError(error) || upstream.signal.aborted) {
          // The client went away after content was delivered: the charge stands, the partial answer is kept.
          await completeOnce({ aborted: true }).catch((e) => p.log.error("rag: completing an aborted answer failed", { error: e }));
          try {
            controller.close();
          } catch {
            // already closed by the cancel
          }
          return;
        }
        p.log.warn("rag: the provider failed mid-stream; credits refunded", { error: (error as Error)?.message });
        if (outcome) return;
        outcome = refundAfterFailure(p, error);
        await outcome;
        controller.enqueue(framing.error("The AI provider failed while answering; your credits were refunded"));
        controller.enqueue(framing.done());
        controller.close();
      }
    },
    cancel() {
      upstream.abort();
      if (!finished) {
        finished = true;
        detach();
        void completeOnce({ aborted: true }).catch((e) => p.log.error("rag: completing an aborted answer failed", { error: e }));
      }
    },
  });

  return { body, conversationId: p.conversation.id, sources: p.sources, chunksUsed: p.chunks.length, tokensEstimated: p.tokensEstimated, retrieval: p.mode };
}
