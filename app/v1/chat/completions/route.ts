import { chatTextLimitBytes } from "@/lib/ai/pricing/chat-text-limit";
import { STREAM_MAX_BODY_BYTES } from "@/lib/ai/schemas";
import { sse } from "@/lib/http/respond";
import { methods, v1Route } from "@/lib/http/route";
import { createChatCompletion, streamChatCompletion } from "@/lib/openai-api/chat-completion";
import { chatCompletionBody, chatCompletionResponse } from "@/lib/openai-api/schemas";
import { charged } from "@/lib/openai-api/route-spec";
import { requestTags } from "@/lib/openai-api/request-tags";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: v1Route(
    {
      keyKind: "chat",
      feature: "aiChat",
      body: chatCompletionBody,
      maxBodyBytes: STREAM_MAX_BODY_BYTES,
      maxTextBytes: chatTextLimitBytes,
      summary: "Chat completion, OpenAI-compatible (JSON or SSE with stream: true)",
      description:
        "OpenAI's chat completions: text and base64 data-URL images in messages, `stream` with `stream_options.include_usage`. Flat prices: 15 credits, 20 streamed, 30 with an image; metered: the usage's cost. The usage carries `credits_charged` and `credits_remaining`.",
      response: chatCompletionResponse,
      produces: ["application/json", "text/event-stream"],
    },
    async ({ apiKey, aiSlot, body, req, log }) => {
      if (body.stream) {
        const { body: stream, reservation } = await streamChatCompletion({
          key: apiKey,
          slot: aiSlot,
          body,
          signal: req.signal,
          log,
          tags: requestTags(req, body),
        });
        // The final charge is in the closing usage chunk; the headers say what was reserved.
        return sse(stream, {
          "X-Credits-Reserved": String(reservation.charged ? reservation.amount : 0),
          "X-Credits-Remaining": String(reservation.remaining),
        });
      }
      const { completion, credits } = await createChatCompletion({
        key: apiKey,
        slot: aiSlot,
        body,
        signal: req.signal,
        tags: requestTags(req, body),
      });
      return charged({ answer: completion, credits });
    },
  ),
});
