import { chatTextLimitBytes } from "@/lib/ai/pricing/chat-text-limit";
import { streamBodySchema, STREAM_MAX_BODY_BYTES } from "@/lib/ai/schemas";
import { streamChat } from "@/lib/ai/chat/stream-chat";
import { sse } from "@/lib/http/respond";
import { aiRoute, methods, streamedAiInput } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: aiRoute(
    {
      feature: "aiChat",
      body: streamBodySchema,
      maxBodyBytes: STREAM_MAX_BODY_BYTES,
      maxTextBytes: chatTextLimitBytes,
      summary: "Streaming chat with text and image input (20 credits, 30 with an image part)",
      description:
        "SSE: text chunks, then `event: meta` {creditsUsed, creditsRemaining}, then [DONE]. X-RateLimit-* describe the credit allowance.",
      produces: "text/event-stream",
    },
    async (ctx) => {
      const result = await streamChat(streamedAiInput(ctx));
      return sse(result.body, result.headers);
    },
  ),
});
