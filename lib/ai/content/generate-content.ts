import type { Logger } from "@/lib/log";
import type { ChargeSlot } from "@/lib/db/ai-slots";
import { openCharge, type ChargeAccount } from "../pricing/ai-charge";
import { startChargedStream, type StreamFraming } from "../charged-stream";
import { buildContentPrompt, checkTemplateFields, type ContentBody } from "./content-templates";
import { aiProvider, type ChatMessage } from "../providers/provider";
import { quoteChatRoutes } from "../pricing/quote-routes";
import { aiSettings } from "../settings";

/**
 * POST /api/ai/generate-content: a template prompt streamed as SSE (flat: 25 credits; metered: the
 * usage's cost): content chunks, then the meta event, then [DONE]. The upstream call is bounded by the
 * 60-second maximum duration.
 */
export async function generateContent(input: {
  userId: string;
  account?: ChargeAccount;
  slot?: ChargeSlot | null;
  body: ContentBody;
  signal: AbortSignal;
  framing: StreamFraming;
  log?: Logger;
}) {
  checkTemplateFields(input.body);
  const provider = aiProvider();
  const settings = aiSettings();
  const prompt = buildContentPrompt(input.body);
  const messages: ChatMessage[] = [
    { role: "system", content: prompt.system },
    { role: "user", content: prompt.user },
  ];
  const model = settings.chatModel;
  const quote = await quoteChatRoutes(model, { messages, operation: "content_generation", field: "fields" });
  const charge = await openCharge({
    userId: input.userId,
    account: input.account,
    slot: input.slot,
    operation: "content_generation",
    quote,
    metadata: { provider: provider.name, template: input.body.template, language: input.body.language },
  });
  return startChargedStream({
    charge,
    provider,
    request: { model, messages, maxTokens: quote.maxOutputTokens, timeoutMs: settings.longTimeoutMs },
    clientSignal: input.signal,
    framing: input.framing,
    log: input.log,
  });
}
