import { CREDIT_COSTS } from "@/lib/config/pricing";
import type { Logger } from "@/lib/log";
import { creditAllowanceHeaders } from "./credit-allowance";
import { startChargedStream, type StreamFraming } from "./charged-stream";
import { aiProvider, type ChatMessage } from "./provider";
import type { StreamBody } from "./schemas";
import { resolveChatModel } from "./settings";

/** True when any message carries an image part (the stream then costs 30 credits instead of 20). */
export function hasImagePart(body: StreamBody): boolean {
  return body.messages.some((m) => typeof m.content !== "string" && m.content.some((p) => p.type === "image"));
}

/**
 * POST /api/ai/stream: a charged SSE chat stream (20 credits, 30 with an image part). Answers the
 * body and the X-RateLimit-* headers describing the user's credit allowance after this charge.
 */
export async function streamChat(input: { userId: string; body: StreamBody; signal: AbortSignal; framing: StreamFraming; log?: Logger }) {
  const provider = aiProvider();
  const withImage = hasImagePart(input.body);
  const cost = withImage ? CREDIT_COSTS.streamImage : CREDIT_COSTS.streamText;
  const messages: ChatMessage[] = [];
  if (input.body.systemPrompt) messages.push({ role: "system", content: input.body.systemPrompt });
  for (const m of input.body.messages) messages.push({ role: m.role, content: m.content, ...(m.name ? { name: m.name } : {}) });
  const request = { model: resolveChatModel(input.body.model), messages, temperature: input.body.temperature, maxTokens: input.body.maxTokens };
  const { body, reservation } = await startChargedStream({
    userId: input.userId,
    cost,
    operation: withImage ? "stream_image" : "stream",
    provider,
    request,
    clientSignal: input.signal,
    framing: input.framing,
    metadata: { withImage },
    log: input.log,
  });
  // From what the charge read under its balance lock: no query of their own.
  return { body, headers: creditAllowanceHeaders(reservation), cost };
}
