import { CREDIT_COSTS } from "@/lib/config/pricing";
import type { Logger } from "@/lib/log";
import { startChargedStream, type StreamFraming } from "./charged-stream";
import { buildContentPrompt, checkTemplateFields, type ContentBody } from "./content-templates";
import { aiProvider } from "./provider";
import { aiSettings } from "./settings";

/**
 * POST /api/ai/generate-content: a template prompt streamed as SSE (25 credits): content chunks, then
 * the meta event, then [DONE]. The upstream call is bounded by the 60-second maximum duration.
 */
export async function generateContent(input: { userId: string; body: ContentBody; signal: AbortSignal; framing: StreamFraming; log?: Logger }) {
  checkTemplateFields(input.body);
  const provider = aiProvider();
  const settings = aiSettings();
  const prompt = buildContentPrompt(input.body);
  const { body } = await startChargedStream({
    userId: input.userId,
    cost: CREDIT_COSTS.contentGeneration,
    operation: "content_generation",
    provider,
    request: {
      model: settings.chatModel,
      messages: [
        { role: "system", content: prompt.system },
        { role: "user", content: prompt.user },
      ],
      timeoutMs: settings.longTimeoutMs,
    },
    clientSignal: input.signal,
    framing: input.framing,
    metadata: { template: input.body.template, language: input.body.language },
    log: input.log,
  });
  return body;
}
