import { methods, v1Route } from "@/lib/http/route";
import { createEmbeddings } from "@/lib/openai-api/create-embeddings";
import { charged } from "@/lib/openai-api/route-spec";
import { requestTags } from "@/lib/openai-api/request-tags";
import { embeddingsBody, embeddingsResponse } from "@/lib/openai-api/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: v1Route(
    {
      keyKind: "embeddings",
      body: embeddingsBody,
      maxBodyBytes: 8 * 1024 * 1024,
      summary: "Embeddings, OpenAI-compatible",
      description:
        "Text inputs (a string or up to 2048 strings); `encoding_format` float or base64; `dimensions` shortens text-embedding-3 vectors. Flat: 1 credit a call; metered: the tokens' cost.",
      response: embeddingsResponse,
    },
    async ({ apiKey, aiSlot, body, req }) =>
      charged(await createEmbeddings({ key: apiKey, slot: aiSlot, body, signal: req.signal, tags: requestTags(req, body) })),
  ),
});
