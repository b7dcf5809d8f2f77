import type { RequestTags } from "./request-tags";
import type { ChargeSlot } from "@/lib/db/ai-slots";
import { randomUUID } from "node:crypto";
import type { ApiKeyPrincipal } from "@/lib/api-keys/authenticate-api-key";
import { openCharge, type AiCharge } from "@/lib/ai/pricing/ai-charge";
import { runChargedChat } from "@/lib/ai/charged-call";
import { startChargedStream, type StreamFraming } from "@/lib/ai/charged-stream";
import { aiProvider, type ChatMessage, type ChatRequest, type ContentPart, type TokenUsage } from "@/lib/ai/providers/provider";
import { quoteChatRoutes } from "@/lib/ai/pricing/quote-routes";
import { imageDataUrl } from "@/lib/ai/schemas";
import { flatPrice } from "@/lib/ai/pricing/operations";
import { AppError } from "@/lib/errors";
import type { Logger } from "@/lib/log";
import { chargeKey, requireKeyModel } from "./key-models";
import type { ChatCompletionBody, OpenAiChatMessage } from "./schemas";

function invalid(param: string, message: string): AppError {
  return new AppError("validation_failed", `Invalid body: ${param}: ${message}`, { param });
}

/** OpenAI messages as the providers take them: developer is system; images only as data URLs. */
function toMessages(messages: OpenAiChatMessage[]): { messages: ChatMessage[]; images: number } {
  let images = 0;
  const out = messages.map((m, i): ChatMessage => {
    const role = m.role === "developer" ? "system" : m.role;
    if (m.content === null) {
      if (m.role !== "assistant") throw invalid(`messages.${i}.content`, "is required");
      return { role, content: "", ...(m.name ? { name: m.name } : {}) };
    }
    if (typeof m.content === "string") return { role, content: m.content, ...(m.name ? { name: m.name } : {}) };
    const parts = m.content.map((p, j): ContentPart => {
      if (p.type === "text") return { type: "text", text: p.text };
      const field = `messages.${i}.content.${j}.image_url.url`;
      if (!p.image_url.url.startsWith("data:"))
        throw invalid(field, "only base64 data URLs are accepted (data:image/png;base64,...); remote image URLs are not fetched");
      const checked = imageDataUrl.safeParse(p.image_url.url);
      if (!checked.success) throw invalid(field, checked.error.issues[0]?.message ?? "is not a valid image");
      images++;
      return { type: "image", image: p.image_url.url };
    });
    return { role, content: parts, ...(m.name ? { name: m.name } : {}) };
  });
  return { messages: out, images };
}

interface PreparedCompletion {
  request: ChatRequest;
  charge: AiCharge;
  model: string;
}

/**
 * The call quoted at its worst case over its routes and reserved on the key (a 400 names what is too
 * large; no credits or budget is a 429 insufficient_quota, both before any upstream call). Flat
 * prices: 15 credits, 20 streamed, 30 with an image (the session API's chat, stream and image-stream).
 */
async function prepare(
  key: ApiKeyPrincipal,
  body: ChatCompletionBody,
  provider: string,
  tags?: RequestTags,
  slot?: ChargeSlot | null,
): Promise<PreparedCompletion> {
  const model = requireKeyModel(key, body.model, "chat").id;
  const { messages, images } = toMessages(body.messages);
  const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  const maxTokensField = body.max_completion_tokens != null ? "max_completion_tokens" : "max_tokens";
  const operation = body.stream ? (images > 0 ? "stream_image" : "stream") : "chat";
  // A JSON answer about an image costs what the session API's image stream costs (its ledger name stays "chat").
  const quote = await quoteChatRoutes(model, {
    messages,
    maxTokens,
    flat: flatPrice(images > 0 ? "stream_image" : operation),
    maxTokensField,
  });
  const charge = await openCharge({
    userId: key.userId,
    apiKey: chargeKey(key),
    slot,
    operation,
    quote,
    metadata: { provider, api: "v1", ...(images > 0 ? { withImage: true } : {}), ...tags },
  });
  return { request: { model, messages, temperature: body.temperature ?? undefined, maxTokens: quote.maxOutputTokens }, charge, model };
}

/** OpenAI reports why the answer ended; providers here report usage only: an answer that filled its cap was cut at it. */
function finishReason(usage: TokenUsage | null, cap: number | undefined): "stop" | "length" {
  return usage && cap !== undefined && usage.completionTokens >= cap ? "length" : "stop";
}

/**
 * The completion's id is its charge's (chatcmpl- and the charge id's hex), so GET /api/usage/requests/{id}
 * finds what the call cost; a call nothing was charged for (classic SaaS) gets a random one.
 */
export const completionId = (charge: AiCharge) =>
  `chatcmpl-${(charge.reservation.charged && charge.reservation.id ? charge.reservation.id : randomUUID()).replaceAll("-", "")}`;

/** POST /v1/chat/completions without streaming: streamed upstream through the charged call engine, answered as one JSON completion. */
export async function createChatCompletion(input: {
  key: ApiKeyPrincipal;
  slot?: ChargeSlot | null;
  body: ChatCompletionBody;
  signal?: AbortSignal;
  tags?: RequestTags;
}) {
  const provider = aiProvider();
  const { request, charge, model } = await prepare(input.key, input.body, provider.name, input.tags, input.slot);
  const { result, settled } = await runChargedChat({ charge, provider, request, signal: input.signal });
  const usage = result.usage;
  return {
    credits: settled,
    completion: {
      id: completionId(charge),
      object: "chat.completion" as const,
      created: Math.floor(Date.now() / 1000),
      // The model asked for, as streams name it (the provider's own id is on the ledger row).
      model,
      choices: [
        {
          index: 0,
          message: { role: "assistant" as const, content: result.text, refusal: null },
          logprobs: null,
          finish_reason: finishReason(usage, request.maxTokens),
        },
      ],
      usage: {
        prompt_tokens: usage.promptTokens,
        completion_tokens: usage.completionTokens,
        total_tokens: usage.promptTokens + usage.completionTokens,
        ...(usage.cachedPromptTokens ? { prompt_tokens_details: { cached_tokens: usage.cachedPromptTokens } } : {}),
        credits_charged: settled.credits,
        credits_remaining: settled.remaining,
      },
      system_fingerprint: null,
    },
  };
}

/**
 * OpenAI's chat.completion.chunk framing of the charged-stream engine: content deltas, then a chunk
 * with finish_reason, then (stream_options.include_usage) a chunk with no choices and the usage, then
 * `data: [DONE]`. A provider failing mid-stream sends `data: {"error": {...}}`, which the SDKs raise.
 */
function openAiFraming(id: string, model: string, includeUsage: boolean, cap: number | undefined): StreamFraming {
  const encoder = new TextEncoder();
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    encoder.encode(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, system_fingerprint: null, choices, ...(includeUsage ? { usage: null } : {}), ...extra })}\n\n`,
    );
  let first = true;
  return {
    text(text) {
      const delta = first ? { role: "assistant", content: text } : { content: text };
      first = false;
      return chunk([{ index: 0, delta, logprobs: null, finish_reason: null }]);
    },
    meta(meta) {
      const usage = (meta.usage as TokenUsage | null) ?? null;
      const end = chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason(usage, cap) }]);
      if (!includeUsage) return end;
      const prompt = usage?.promptTokens ?? 0;
      const completion = usage?.completionTokens ?? 0;
      const usageChunk = chunk([], {
        usage: {
          prompt_tokens: prompt,
          completion_tokens: completion,
          total_tokens: prompt + completion,
          credits_charged: meta.creditsUsed,
          credits_remaining: meta.creditsRemaining,
        },
      });
      const both = new Uint8Array(end.length + usageChunk.length);
      both.set(end);
      both.set(usageChunk, end.length);
      return both;
    },
    error(message) {
      return encoder.encode(`data: ${JSON.stringify({ error: { message, type: "server_error", code: null, param: null } })}\n\n`);
    },
    done() {
      return encoder.encode("data: [DONE]\n\n");
    },
  };
}

/** POST /v1/chat/completions with `stream: true`: the charged-stream engine in OpenAI's framing. */
export async function streamChatCompletion(input: {
  key: ApiKeyPrincipal;
  slot?: ChargeSlot | null;
  body: ChatCompletionBody;
  signal: AbortSignal;
  log?: Logger;
  tags?: RequestTags;
}) {
  const provider = aiProvider();
  const { request, charge, model } = await prepare(input.key, input.body, provider.name, input.tags, input.slot);
  const body = await startChargedStream({
    charge,
    provider,
    request,
    clientSignal: input.signal,
    framing: openAiFraming(completionId(charge), model, input.body.stream_options?.include_usage === true, request.maxTokens),
    log: input.log,
    // The usage the provider reported (or what was counted), for the closing chunks.
    onComplete: async (outcome) => ({
      usage: { promptTokens: outcome.billed.promptTokens ?? 0, completionTokens: outcome.billed.completionTokens ?? 0 },
    }),
  });
  return { body, reservation: charge.reservation };
}
