import type { AnsweredBy, ChatResult, StreamPart, TokenUsage } from "./provider-types";

/**
 * A chat answer assembled from its stream. Every chat call is streamed upstream, even when the
 * client wants one JSON answer, so that what the provider produced is known when the call is cut
 * (docs/API-NOTES.md "Pricing"); this gathers the parts into the answer.
 */
export async function assembleChat(parts: AsyncIterable<StreamPart>, fallbackModel: string): Promise<ChatResult> {
  let text = "";
  let usage: (TokenUsage & { model: string }) | null = null;
  let route: AnsweredBy | undefined;
  for await (const part of parts) {
    if (part.type === "text") text += part.text;
    else if (part.type === "usage") usage = part;
    else if (part.type === "route") route = { provider: part.provider, model: part.model };
  }
  return {
    text,
    model: usage?.model ?? fallbackModel,
    usage: usage
      ? {
          promptTokens: usage.promptTokens,
          completionTokens: usage.completionTokens,
          ...(usage.cachedPromptTokens ? { cachedPromptTokens: usage.cachedPromptTokens } : {}),
        }
      : { promptTokens: 0, completionTokens: 0 },
    usageReported: usage !== null,
    ...(route ? { route } : {}),
  };
}
