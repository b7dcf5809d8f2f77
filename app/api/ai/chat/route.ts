import { z } from "zod";
import { runChat, runChatBatch } from "@/lib/ai/chat/run-chat";
import { chatBatchSchema, chatBodySchema, chatRequestSchema, chatResponse, CHAT_MAX_BODY_BYTES } from "@/lib/ai/schemas";
import { aiRoute, methods } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: aiRoute(
    {
      feature: "aiChat",
      body: chatRequestSchema,
      bodyDoc: z.union([chatBodySchema, chatBatchSchema]),
      responseHeaders: { "X-Cache": "single requests: HIT when answered from the answer cache, else MISS" },
      maxBodyBytes: CHAT_MAX_BODY_BYTES,
      summary: "Chat completion (15 credits), or a batch of 1-10 run concurrently",
      description:
        "Single: { messages, model?, temperature?, maxTokens?, systemPrompt?, context?, cache?, cacheTTL? }. Batch: { requests: [single, ...] } answers { results: [answer | { error }], cost }.",
      response: chatResponse,
    },
    async ({ user, account, aiSlot, body, req, setHeader }) => {
      if (body.batch) return runChatBatch({ userId: user.id, account, slot: aiSlot, requests: body.requests, signal: req.signal });
      const { cached, ...result } = await runChat({ userId: user.id, account, slot: aiSlot, body: body.request, signal: req.signal });
      setHeader("X-Cache", cached ? "HIT" : "MISS");
      return result;
    },
  ),
});
