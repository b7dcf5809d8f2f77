import { sse } from "@/lib/http/respond";
import { aiRoute, methods } from "@/lib/http/route";
import { SSE_FRAMING } from "@/lib/http/sse";
import { askQuestion, resolveQuestion, streamQuestion } from "@/lib/rag";
import { askBodySchema, askResponseSchema } from "@/lib/rag/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: aiRoute(
    {
      feature: "aiRag",
      body: askBodySchema,
      summary: "Ask a question over the shared knowledge and your own documents",
      description:
        "Body: `question`, or `messages` in the chat SDK's format (the last user message is the question); optional `conversationId`; `stream`. " +
        "Cost: 10 credits + 1 per started 500 tokens of context (retrieved chunks + conversation history), at most 20. " +
        "Streaming: SSE with X-RAG-Sources (base64 JSON), X-RAG-Chunks-Used, X-RAG-Tokens-Estimated, X-RAG-Conversation-Id; text chunks, `event: meta`, [DONE].",
      tags: ["ai", "rag"],
      // JSON, or with "stream": true server-sent events.
      produces: ["application/json", "text/event-stream"],
      responseHeaders: {
        "X-RAG-Sources": "streaming: base64-encoded JSON of the source references",
        "X-RAG-Chunks-Used": "streaming: number of retrieved chunks",
        "X-RAG-Tokens-Estimated": "streaming: estimated context tokens",
        "X-RAG-Conversation-Id": "streaming: the conversation the answer was stored in",
      },
      response: askResponseSchema,
    },
    async ({ user, account, aiSlot, body, req, log }) => {
      const input = {
        userId: user.id,
        account,
        slot: aiSlot,
        question: resolveQuestion(body),
        conversationId: body?.conversationId,
        signal: req.signal,
        log,
      };
      if (!body?.stream) return askQuestion(input);
      const result = await streamQuestion(input, SSE_FRAMING);
      return sse(result.body, {
        "X-RAG-Sources": Buffer.from(JSON.stringify(result.sources)).toString("base64"),
        "X-RAG-Chunks-Used": String(result.chunksUsed),
        "X-RAG-Tokens-Estimated": String(result.tokensEstimated),
        "X-RAG-Conversation-Id": result.conversationId,
        "X-RAG-Retrieval": result.retrieval,
      });
    },
  ),
});
