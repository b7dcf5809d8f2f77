import { CREDIT_COSTS } from "@/lib/config/pricing";
import { flushSettlements, queueSettlement, refundReservation, reserveCredits, settleReservation, type Reservation } from "@/lib/credits";
import { AppError, isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { isAbortError } from "./abort";
import { chatCacheKey, readCachedChat, writeCachedChat } from "./chat-cache";
import { aiProvider, type AiProvider, type ChatMessage, type ChatRequest, type ChatResult } from "./provider";
import { DEFAULT_CACHE_TTL_SECONDS, type ChatBody } from "./schemas";
import { resolveChatModel } from "./settings";

export interface ChatAnswer extends ChatResult {
  cost: number;
  /** True when served from the per-user cache (no upstream call). */
  cached: boolean;
}

/** Builds the provider request: systemPrompt first, then context as a system message, then the messages. */
export function toChatRequest(body: ChatBody): ChatRequest {
  const messages: ChatMessage[] = [];
  if (body.systemPrompt) messages.push({ role: "system", content: body.systemPrompt });
  if (body.context) messages.push({ role: "system", content: `Context for the conversation:\n${body.context}` });
  for (const m of body.messages) messages.push({ role: m.role, content: m.content, ...(m.name ? { name: m.name } : {}) });
  return { model: resolveChatModel(body.model), messages, temperature: body.temperature, maxTokens: body.maxTokens };
}

/** Runs one chat request whose credits are already reserved; never charges. */
async function answer(provider: AiProvider, userId: string, body: ChatBody, req: ChatRequest, signal?: AbortSignal): Promise<{ result: ChatResult; cached: boolean }> {
  const key = body.cache ? chatCacheKey(userId, provider.name, req) : null;
  if (key) {
    const hit = await readCachedChat(userId, key);
    if (hit) return { result: hit, cached: true };
  }
  const result = await provider.chat({ ...req, signal });
  if (key) {
    // Best effort: a failed cache write must not fail (and refund) an answer the user already paid for.
    await writeCachedChat(userId, key, result, body.cacheTTL ?? DEFAULT_CACHE_TTL_SECONDS).catch((error) =>
      log.warn("chat cache write failed", { userId, error }),
    );
  }
  return { result, cached: false };
}

function clientGone(): AppError {
  return new AppError("bad_request", "The request was aborted by the client");
}

/**
 * POST /api/ai/chat, single mode: 15 credits reserved before anything else (402 without an upstream
 * call), refunded when the provider fails or refuses. A cache hit is charged like any other answer.
 * The settlement (model and token counts on the ledger row) is written by `after`, once the answer
 * is on its way: the credits were taken by the reservation, so nothing the client gets depends on it.
 */
export async function runChat(input: { userId: string; body: ChatBody; signal?: AbortSignal; after?: (task: () => Promise<unknown>) => Promise<void> }): Promise<ChatAnswer> {
  const provider = aiProvider();
  const req = toChatRequest(input.body);
  const cost = CREDIT_COSTS.chat;
  const reservation = await reserveCredits({ userId: input.userId, amount: cost, operation: "chat", metadata: { model: req.model, provider: provider.name } });
  try {
    const { result, cached } = await answer(provider, input.userId, input.body, req, input.signal);
    const metadata = { model: result.model, promptTokens: result.usage.promptTokens, completionTokens: result.usage.completionTokens, cached };
    if (input.after) {
      queueSettlement(reservation, metadata);
      await input.after(flushSettlements);
    } else {
      await settleReservation(reservation, metadata);
    }
    return { ...result, cost: reservation.charged ? cost : 0, cached };
  } catch (error) {
    await refundReservation(reservation, { reason: isAppError(error) ? error.code : "aborted" });
    if (isAbortError(error)) throw clientGone();
    throw error;
  }
}

export type BatchItem = { text: string; model: string; usage: ChatResult["usage"]; cost: number; cached: boolean } | { error: string };

/**
 * POST /api/ai/chat, batch mode: `{ requests: [...] }` (1-10) run concurrently. The whole batch
 * (15 x n) is reserved first (402 if not enough, no upstream call); each failed item is refunded (one
 * partial refund once all items settled). `cost` is what was finally charged.
 */
export async function runChatBatch(input: { userId: string; requests: ChatBody[]; signal?: AbortSignal }): Promise<{ results: BatchItem[]; cost: number }> {
  const provider = aiProvider();
  const prepared = input.requests.map((body) => ({ body, req: toChatRequest(body) }));
  const unit = CREDIT_COSTS.chat;
  const reservation: Reservation = await reserveCredits({
    userId: input.userId,
    amount: unit * prepared.length,
    operation: "chat_batch",
    metadata: { items: prepared.length, provider: provider.name },
  });
  const settledItems = await Promise.allSettled(prepared.map(({ body, req }) => answer(provider, input.userId, body, req, input.signal)));
  const charged = reservation.charged ? unit : 0;
  const results: BatchItem[] = settledItems.map((s) =>
    s.status === "fulfilled"
      ? { text: s.value.result.text, model: s.value.result.model, usage: s.value.result.usage, cost: charged, cached: s.value.cached }
      : { error: itemError(s.reason) },
  );
  const failed = results.filter((r) => "error" in r).length;
  if (failed === results.length) {
    await refundReservation(reservation, { reason: "batch_failed" });
    if (input.signal?.aborted) throw clientGone();
  } else {
    if (failed > 0) await refundReservation(reservation, { amount: unit * failed, reason: "batch_items_failed" });
    await settleReservation(reservation, { items: results.length, failed });
  }
  return { results, cost: charged * (results.length - failed) };
}

function itemError(error: unknown): string {
  if (isAbortError(error)) return "The request was aborted by the client";
  if (isAppError(error) && error.code !== "internal") return error.message;
  return "Internal server error";
}
