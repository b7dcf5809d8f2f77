import { isAppError, type ErrorCode } from "@/lib/errors";
import type { ChargeSlot } from "@/lib/db/ai-slots";
import { log } from "@/lib/log";
import { isAbortError } from "../providers/abort";
import { openCharge, priceOutcome, type AiCharge, type CallOutcome, type ChargeAccount } from "../pricing/ai-charge";
import { chatFailure, clientGone, meterResult, runChargedCall } from "../charged-call";
import { chatCacheKey, readCachedChat, writeCachedChat } from "./chat-cache";
import { ChatMeter } from "../pricing/meter";
import { quoteChatRoutes } from "../pricing/quote-routes";
import { aiProvider, type AiProvider, type ChatMessage, type ChatRequest, type ChatResult } from "../providers/provider";
import type { Quote } from "../pricing/quote-call";
import { DEFAULT_CACHE_TTL_SECONDS, type ChatBody } from "../schemas";
import { resolveChatModel } from "../settings";

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
async function prepare(body: ChatBody, field = "messages"): Promise<{ req: ChatRequest; quote: Quote }> {
  const req = toChatRequest(body);
  const quote = await quoteChatRoutes(req.model as string, { messages: req.messages, maxTokens: body.maxTokens, operation: "chat", field });
  return { req: { ...req, maxTokens: quote.maxOutputTokens }, quote };
}

interface ItemOutcome {
  result: ChatResult;
  cached: boolean;
  outcome: CallOutcome;
}

/**
 * Runs one chat request whose credits are already reserved, through its own meter (an answer from
 * the per-user cache has no upstream call); the outcome prices it. Never charges itself.
 */
async function answer(
  provider: AiProvider,
  userId: string,
  body: ChatBody,
  req: ChatRequest,
  quote: Quote,
  meter: ChatMeter,
  signal?: AbortSignal,
): Promise<ItemOutcome> {
  const key = body.cache ? chatCacheKey(userId, provider.name, req) : null;
  if (key) {
    const hit = await readCachedChat(userId, key);
    if (hit) return { result: hit, cached: true, outcome: { attempts: [], complete: true, cached: true } };
  }
  for await (const part of provider.streamChat({ ...req, signal })) meter.observe(part);
  const result = meterResult(meter, (req.model as string | undefined) ?? quote.model.id);
  if (key) {
    // Best effort: a failed cache write must not fail (and refund) an answer the user already paid for.
    await writeCachedChat(userId, key, result, body.cacheTTL ?? DEFAULT_CACHE_TTL_SECONDS).catch((error) =>
      log.warn("chat cache write failed", { userId, error }),
    );
  }
  return { result, cached: false, outcome: { attempts: meter.bill(true), complete: true } };
}

/**
 * POST /api/ai/chat, single mode: the call's worst case is quoted (a 400 names what is too large)
 * and reserved before anything else (402 without an upstream call), and settled through the charged
 * call engine (lib/ai/charged-call.ts): at its price when answered (flat: 15 credits; metered: the
 * usage's cost), refunded when the provider never had it, or charged what it used when it was cut
 * after the provider had it. `cost` is what was charged.
 */
export async function runChat(input: {
  userId: string;
  account?: ChargeAccount;
  slot?: ChargeSlot | null;
  body: ChatBody;
  signal?: AbortSignal;
}): Promise<ChatAnswer> {
  const provider = aiProvider();
  const { req, quote } = await prepare(input.body);
  const charge = await openCharge({
    userId: input.userId,
    account: input.account,
    slot: input.slot,
    operation: "chat",
    quote,
    metadata: { provider: provider.name },
  });
  const meter = new ChatMeter(quote);
  const { value, settled } = await runChargedCall({
    charge,
    signal: input.signal,
    call: (signal) => answer(provider, input.userId, input.body, req, quote, meter, signal),
    answered: (v) => v.outcome,
    failed: (error) => chatFailure(meter, error),
    settle: (v) => ({ model: v.result.model }),
  });
  const { route: _route, usageReported: _reported, ...result } = value.result;
  return { ...result, usage: specUsage(result.usage), cost: settled.credits, cached: value.cached };
}

export type BatchItem =
  { text: string; model: string; usage: ChatResult["usage"]; cost: number; cached: boolean } | { error: string; code: ErrorCode };

/**
 * POST /api/ai/chat, batch mode: `{ requests: [...] }` (1-10) run concurrently. Every item is quoted
 * first (a 400 names the item's field), the sum of their worst cases is reserved as one charge (402 if
 * not enough, no upstream call), and the charge is settled at the sum of the items' prices: an item
 * the provider never had costs nothing, one cut after it had it costs what it used. `cost` is what
 * was finally charged.
 */
export async function runChatBatch(input: {
  userId: string;
  account?: ChargeAccount;
  slot?: ChargeSlot | null;
  requests: ChatBody[];
  signal?: AbortSignal;
}): Promise<{ results: BatchItem[]; cost: number }> {
  const provider = aiProvider();
  const prepared = await Promise.all(input.requests.map(async (body, i) => ({ body, ...(await prepare(body, `requests.${i}.messages`)) })));
  const batchQuote: Quote = {
    ...prepared[0].quote,
    reserve: prepared.reduce((sum, p) => sum + p.quote.reserve, 0),
    worstMicros: prepared.reduce((sum, p) => sum + p.quote.worstMicros, 0),
  };
  const charge: AiCharge = await openCharge({
    userId: input.userId,
    account: input.account,
    slot: input.slot,
    operation: "chat_batch",
    quote: batchQuote,
    metadata: { items: prepared.length, provider: provider.name },
  });
  const meters = prepared.map((p) => new ChatMeter(p.quote));
  // The charged-call engine: a client gone refunds all; items that all failed with nothing billed
  // refund all (thrown as BatchFailed); otherwise the batch settles at the sum of its items' prices.
  const { value: batch } = await runChargedCall({
    charge,
    signal: input.signal,
    call: async (signal) => {
      const outcomes = await Promise.allSettled(
        prepared.map(({ body, req, quote }, i) => answer(provider, input.userId, body, req, quote, meters[i], signal)),
      );
      // Each item priced by its own quote: answered, cut after the provider had it, or nothing.
      const priced = outcomes.map((o, i) => {
        const item = { ...charge, quote: prepared[i].quote };
        if (o.status === "fulfilled") return priceOutcome(item, o.value.outcome);
        const cut = chatFailure(meters[i], o.reason);
        return cut ? priceOutcome(item, cut) : null;
      });
      if (priced.every((p) => p === null)) throw new BatchFailed(outcomes.map((o) => (o.status === "rejected" ? o.reason : null)));
      return { outcomes, priced };
    },
    answered: ({ outcomes }) => {
      const usage = outcomes.reduce(
        (u, o) =>
          o.status === "fulfilled"
            ? {
                promptTokens: u.promptTokens + o.value.result.usage.promptTokens,
                completionTokens: u.completionTokens + o.value.result.usage.completionTokens,
              }
            : u,
        { promptTokens: 0, completionTokens: 0 },
      );
      const last = meters.flatMap((m) => m.bill(true)).slice(-1)[0];
      return { attempts: last ? [{ ...last, usage }] : [], complete: outcomes.every((o) => o.status === "fulfilled") };
    },
    failed: () => null,
    settle: ({ outcomes, priced }) => ({
      price: {
        credits: priced.reduce((sum, p) => sum + (p?.credits ?? 0), 0),
        micros: priced.reduce((sum, p) => sum + (p?.micros ?? 0), 0),
      },
      metadata: { items: prepared.length, failed: outcomes.filter((o) => o.status === "rejected").length },
    }),
  }).catch((error: unknown) => {
    // Every item failed: answered item by item, as before; the charge was refunded.
    if (error instanceof BatchFailed)
      return {
        value: {
          outcomes: error.reasons.map((reason) => ({ status: "rejected" as const, reason })),
          priced: error.reasons.map(() => null),
        },
      };
    throw error;
  });
  const { outcomes, priced } = batch;
  const credits = priced.reduce((sum, p) => sum + (p?.credits ?? 0), 0);
  const answered = outcomes.filter((o) => o.status === "fulfilled").length;
  const charged = charge.reservation.charged;
  if (answered === 0 && input.signal?.aborted) throw clientGone();
  const results: BatchItem[] = outcomes.map((o, i) =>
    o.status === "fulfilled"
      ? {
          text: o.value.result.text,
          model: o.value.result.model,
          usage: specUsage(o.value.result.usage),
          cost: charged ? (priced[i]?.credits ?? 0) : 0,
          cached: o.value.cached,
        }
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
  if (isAbortError(error)) return clientGone().message;
  if (isAppError(error) && error.code !== "internal") return error.message;
  return "Internal server error";
}

/** A batch whose items all failed with nothing billed: its charge is refunded, each item answers its error. */
class BatchFailed extends Error {
  constructor(readonly reasons: unknown[]) {
    super("every item of the batch failed");
  }
}
