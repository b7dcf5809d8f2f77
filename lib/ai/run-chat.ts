import { CREDIT_COSTS } from "@/lib/config/pricing";
import { AppError, isAppError, type ErrorCode } from "@/lib/errors";
import { log } from "@/lib/log";
import { isAbortError } from "./abort";
import { openCharge, priceUsage, refundCharge, settleCharge, type AiCharge } from "./ai-charge";
import { chatCacheKey, readCachedChat, writeCachedChat } from "./chat-cache";
import { quoteChatRoutes } from "./quote-routes";
import { aiProvider, type AiProvider, type ChatMessage, type ChatRequest, type ChatResult } from "./provider";
import type { Quote } from "./quote-call";
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

/** The request and its worst-case quote over its routes; the request's output cap becomes the quote's. 400s name the field. */
function prepare(body: ChatBody, field = "messages"): { req: ChatRequest; quote: Quote } {
  const req = toChatRequest(body);
  const quote = quoteChatRoutes(req.model as string, { messages: req.messages, maxTokens: body.maxTokens, flat: CREDIT_COSTS.chat, field });
  return { req: { ...req, maxTokens: quote.maxOutputTokens }, quote };
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
 * POST /api/ai/chat, single mode: the call's worst case is quoted (a 400 names what is too large)
 * and reserved before anything else (402 without an upstream call), refunded when the provider fails
 * or refuses, and settled at its price (flat: 15 credits; metered: the usage's cost) before the
 * answer is returned, so `cost` is what was charged.
 */
export async function runChat(input: { userId: string; body: ChatBody; signal?: AbortSignal }): Promise<ChatAnswer> {
  const provider = aiProvider();
  const { req, quote } = prepare(input.body);
  const charge = await openCharge({ userId: input.userId, operation: "chat", quote, metadata: { provider: provider.name } });
  let outcome: { result: ChatResult; cached: boolean };
  try {
    outcome = await answer(provider, input.userId, input.body, req, input.signal);
  } catch (error) {
    await refundCharge(charge, isAppError(error) ? error.code : "aborted");
    if (isAbortError(error)) throw clientGone();
    throw error;
  }
  const { route, ...result } = outcome.result;
  const { cached } = outcome;
  const settled = await settleCharge(charge, result.usage, { cached, model: result.model, answeredBy: route, background: true });
  return { ...result, usage: specUsage(result.usage), cost: settled.credits, cached };
}

export type BatchItem = { text: string; model: string; usage: ChatResult["usage"]; cost: number; cached: boolean } | { error: string; code: ErrorCode };

/**
 * POST /api/ai/chat, batch mode: `{ requests: [...] }` (1-10) run concurrently. Every item is quoted
 * first (a 400 names the item's field), the sum of their worst cases is reserved as one charge (402 if
 * not enough, no upstream call), and the charge is settled at the sum of the answered items' prices:
 * failed items cost nothing. `cost` is what was finally charged.
 */
export async function runChatBatch(input: { userId: string; requests: ChatBody[]; signal?: AbortSignal }): Promise<{ results: BatchItem[]; cost: number }> {
  const provider = aiProvider();
  const prepared = input.requests.map((body, i) => ({ body, ...prepare(body, `requests.${i}.messages`) }));
  const batchQuote: Quote = {
    ...prepared[0].quote,
    reserve: prepared.reduce((sum, p) => sum + p.quote.reserve, 0),
    worstMicros: prepared.reduce((sum, p) => sum + p.quote.worstMicros, 0),
  };
  const charge: AiCharge = await openCharge({ userId: input.userId, operation: "chat_batch", quote: batchQuote, metadata: { items: prepared.length, provider: provider.name } });
  const outcomes = await Promise.allSettled(prepared.map(({ body, req }) => answer(provider, input.userId, body, req, input.signal)));
  const priced = outcomes.map((o, i) => {
    if (o.status === "rejected") return null;
    return priceUsage({ ...charge, quote: prepared[i].quote }, o.value.result.usage, { cached: o.value.cached, answeredBy: o.value.result.route });
  });
  const answered = priced.filter((p) => p !== null).length;
  if (answered === 0) {
    await refundCharge(charge, "batch_failed");
    if (input.signal?.aborted) throw clientGone();
  }
  const credits = priced.reduce((sum, p) => sum + (p?.credits ?? 0), 0);
  const micros = priced.reduce((sum, p) => sum + (p?.micros ?? 0), 0);
  const usage = outcomes.reduce(
    (u, o) => (o.status === "fulfilled" ? { promptTokens: u.promptTokens + o.value.result.usage.promptTokens, completionTokens: u.completionTokens + o.value.result.usage.completionTokens } : u),
    { promptTokens: 0, completionTokens: 0 },
  );
  const charged = charge.reservation.charged;
  if (answered > 0) {
    await settleCharge(charge, usage, { price: { credits, micros }, metadata: { items: prepared.length, failed: prepared.length - answered }, background: true });
  }
  const results: BatchItem[] = outcomes.map((o, i) =>
    o.status === "fulfilled"
      ? { text: o.value.result.text, model: o.value.result.model, usage: specUsage(o.value.result.usage), cost: charged ? (priced[i]?.credits ?? 0) : 0, cached: o.value.cached }
      : { error: itemError(o.reason), code: itemCode(o.reason) },
  );
  return { results, cost: charged ? credits : 0 };
}

/** The answer's `usage` as SPEC §4.4 shapes it (the cached share is recorded on the ledger, not answered). */
function specUsage(u: ChatResult["usage"]): { promptTokens: number; completionTokens: number } {
  return { promptTokens: u.promptTokens, completionTokens: u.completionTokens };
}

function itemCode(error: unknown): ErrorCode {
  if (isAbortError(error)) return "bad_request";
  return isAppError(error) ? error.code : "internal";
}

function itemError(error: unknown): string {
  if (isAbortError(error)) return "The request was aborted by the client";
  if (isAppError(error) && error.code !== "internal") return error.message;
  return "Internal server error";
}
