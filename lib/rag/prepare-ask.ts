import { randomUUID } from "node:crypto";
import type { ChargeSlot } from "@/lib/db/ai-slots";
import { beforeChargedCall } from "@/lib/ai/charged-call";
import { openCharge, type AiCharge, type ChargeAccount } from "@/lib/ai/pricing/ai-charge";
import { pricedModel } from "@/lib/ai/catalog/models";
import { aiProvider, type AiProvider, type ChatMessage } from "@/lib/ai/providers/provider";
import { creditsForCost } from "@/lib/ai/pricing/price-call";
import { pricingSettings } from "@/lib/ai/pricing/pricing-settings";
import { quoteEmbedding, type Quote } from "@/lib/ai/pricing/quote-call";
import { quoteChatRoutes } from "@/lib/ai/pricing/quote-routes";
import { aiSettings } from "@/lib/ai/settings";
import { countTokens } from "@/lib/ai/pricing/tokens";
import { db } from "@/lib/db/client";
import { notFound } from "@/lib/errors";
import { log as rootLog, type Logger } from "@/lib/log";
import { buildMessages, estimatePromptTokens } from "./build-prompt";
import { retrievalUsesEmbeddings, retrieveChunks, type RetrievedChunk } from "./search-chunks";
import { RAG, ragCreditCost } from "./settings";

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
  /** The wallet charged when not the user's own (an organisation's). */
  account?: ChargeAccount;
  /** The request's AI slot still to take across instances (with the charge). */
  slot?: ChargeSlot | null;
  question: string;
  conversationId?: string;
  /** The client's request signal: aborting it aborts the upstream call. */
  signal: AbortSignal;
  log?: Logger;
}

/** Everything an answer needs before the model call: the conversation, the context, the prompt and the charge. */
export interface PreparedAsk {
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
  /** The reserved charge, priced by the answer's own quote (its reservation may be a larger ceiling). */
  charge: AiCharge;
  /** Upstream cost of embedding the question (0 for full-text retrieval), added to the answer's. */
  embeddingMicros: number;
  maxOutputTokens?: number;
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
 * The quote of an answer with `chunks` as its context. Flat: the RAG price (10 credits + 1 per started
 * 500 tokens of context, at most 20), refusing what it does not pay for; metered: the usage's cost.
 */
async function quoteAnswer(
  question: string,
  chunks: RetrievedChunk[],
  history: { messages: ChatMessage[]; tokens: number },
  contextTokens: number,
) {
  const messages = buildMessages(question, chunks, history.messages);
  return {
    messages,
    quote: await quoteChatRoutes(aiSettings().chatModel, { messages, flat: ragCreditCost(contextTokens), field: "question" }),
  };
}

/**
 * Prepares an answer: the conversation (owner only), retrieval within the user's scope, the prompt,
 * and the credit reservation, always before any upstream call. Full-text retrieval needs no upstream
 * call, so the answer's exact quote is reserved after it; when the question must be embedded first,
 * the ceiling of the largest context (plus the embedding) is reserved before, and the settlement
 * returns the unused part.
 */
export async function prepareAsk(input: AskInput): Promise<PreparedAsk> {
  const log = input.log ?? rootLog;
  const prisma = await db();
  let conversation: PreparedAsk["conversation"];
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
  const operation = "rag_ask";
  const metadata = { conversationId: conversation.id, provider: provider.name };
  const embedding = pricedModel(aiSettings().embeddingModel, "embedding");

  let charge: AiCharge | null = null;
  let retrieval: Awaited<ReturnType<typeof retrieveChunks>>;
  if (await retrievalUsesEmbeddings()) {
    const ceiling = await ceilingQuote(input.question, history, quoteEmbedding(embedding, [input.question]).micros);
    charge = await openCharge({ userId: input.userId, account: input.account, slot: input.slot, operation, quote: ceiling, metadata });
    retrieval = await beforeChargedCall(charge, "retrieval_failed", () =>
      retrieveChunks(input.question, { userId: input.userId, signal: input.signal }),
    );
  } else {
    retrieval = await retrieveChunks(input.question, { userId: input.userId, signal: input.signal });
  }
  const contextTokens = retrieval.chunks.reduce((sum, c) => sum + c.tokens, 0) + history.tokens;
  const { messages, quote } = await quoteAnswer(input.question, retrieval.chunks, history, contextTokens);
  charge = charge
    ? { ...charge, quote }
    : await openCharge({ userId: input.userId, account: input.account, slot: input.slot, operation, quote, metadata });
  return {
    input,
    log,
    provider,
    model: aiSettings().chatModel,
    conversation,
    chunks: retrieval.chunks,
    mode: retrieval.mode,
    sources: retrieval.chunks.map(toSource),
    messages,
    contextTokens,
    tokensEstimated: estimatePromptTokens(messages),
    charge,
    embeddingMicros: retrieval.mode === "hybrid" ? quoteEmbedding(embedding, [input.question]).micros : 0,
    maxOutputTokens: quote.maxOutputTokens,
  };
}

/** The most an answer can cost before retrieval: the largest context, and the question's embedding. */
async function ceilingQuote(
  question: string,
  history: { messages: ChatMessage[]; tokens: number },
  embeddingMicros: number,
): Promise<Quote> {
  const largest: RetrievedChunk[] = Array.from({ length: RAG.topK }, (_, i) => ({
    id: `ceiling-${i}`,
    documentId: "ceiling",
    ordinal: i,
    // A chunk holds at most chunkTokens tokens; its title and path at most a line each.
    content: " x".repeat(RAG.chunkTokens),
    tokens: RAG.chunkTokens,
    title: " x".repeat(64),
    path: " x".repeat(64),
    fileId: null,
    source: "knowledge",
    score: 0,
  }));
  const { quote } = await quoteAnswer(question, largest, history, RAG.topK * RAG.chunkTokens + history.tokens);
  if (quote.flatCredits !== null) return quote;
  const worstMicros = quote.worstMicros + embeddingMicros;
  return { ...quote, worstMicros, reserve: creditsForCost(worstMicros, pricingSettings()) };
}
