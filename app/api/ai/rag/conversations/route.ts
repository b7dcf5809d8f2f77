import { AppError } from "@/lib/errors";
import { methods, route } from "@/lib/http/route";
import { deleteConversation, listConversations } from "@/lib/rag";
import { deleteQuerySchema, listQuerySchema, listResponseSchema } from "@/lib/rag/schemas";
import { z } from "zod";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      feature: "aiRag",
      query: listQuerySchema,
      summary: "Your RAG conversations, most recently active first",
      description: "limit 1-100 (default 20), offset >= 0 (default 0).",
      tags: ["ai", "rag"],
      response: listResponseSchema,
    },
    ({ user, query }) => listConversations({ userId: user.id, limit: query.limit, offset: query.offset }),
  ),
  DELETE: route(
    {
      auth: "session",
      feature: "aiRag",
      query: deleteQuerySchema,
      summary: "Delete one of your RAG conversations (?id=)",
      tags: ["ai", "rag"],
      response: z.object({ success: z.boolean(), deleted: z.number() }),
    },
    ({ user, query }) => {
      if (!query.id) throw new AppError("validation_failed", "Missing id: pass the conversation id as ?id=");
      return deleteConversation({ userId: user.id, id: query.id });
    },
  ),
});
