import { methods, route } from "@/lib/http/route";
import { getConversation } from "@/lib/rag";
import { detailResponseSchema } from "@/lib/rag/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      feature: "aiRag",
      summary: "One of your RAG conversations with its messages",
      description: "Owner only: another user's id and a missing id both answer 404.",
      tags: ["ai", "rag"],
      response: detailResponseSchema,
    },
    ({ user, params }) => getConversation({ userId: user.id, id: params.id }),
  ),
});
