import type { Logger } from "@/lib/log";
import type { ChargeSlot } from "@/lib/db/ai-slots";
import { openCharge, type ChargeAccount } from "../pricing/ai-charge";
import { creditAllowanceHeaders } from "../pricing/credit-allowance";
import { startChargedStream, type StreamFraming } from "../charged-stream";
import { aiProvider, type ChatMessage } from "../providers/provider";
import { quoteChatRoutes } from "../pricing/quote-routes";
import type { StreamBody } from "../schemas";
import { resolveChatModel } from "../settings";

/** True when any message carries an image part (the stream then costs 30 credits instead of 20). */
export function hasImagePart(body: StreamBody): boolean {
  return body.messages.some((m) => typeof m.content !== "string" && m.content.some((p) => p.type === "image"));
}

/**
 * POST /api/ai/stream: a charged SSE chat stream (flat: 20 credits, 30 with an image part; metered:
 * the usage's cost). Answers the body and the X-RateLimit-* headers describing the user's credit
 * allowance after the reservation.
 */
export async function streamChat(input: {
  userId: string;
  account?: ChargeAccount;
  slot?: ChargeSlot | null;
  body: StreamBody;
  signal: AbortSignal;
  framing: StreamFraming;
  log?: Logger;
}) {
  const provider = aiProvider();
  const withImage = hasImagePart(input.body);
  const messages: ChatMessage[] = [];
  if (input.body.systemPrompt) messages.push({ role: "system", content: input.body.systemPrompt });
  for (const m of input.body.messages) messages.push({ role: m.role, content: m.content, ...(m.name ? { name: m.name } : {}) });
  const model = resolveChatModel(input.body.model);
  const quote = await quoteChatRoutes(model, {
    messages,
    maxTokens: input.body.maxTokens,
    operation: withImage ? "stream_image" : "stream",
  });
  const charge = await openCharge({
    userId: input.userId,
    account: input.account,
    slot: input.slot,
    operation: withImage ? "stream_image" : "stream",
    quote,
    metadata: { provider: provider.name, withImage },
  });
  const body = await startChargedStream({
    charge,
    provider,
    request: { model, messages, temperature: input.body.temperature, maxTokens: quote.maxOutputTokens },
    clientSignal: input.signal,
    framing: input.framing,
    log: input.log,
  });
  // From what the charge read under its balance lock: no query of their own.
  return { body, headers: creditAllowanceHeaders(charge.reservation) };
}
