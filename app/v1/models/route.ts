import { methods, v1Route } from "@/lib/http/route";
import { listModels } from "@/lib/openai-api/list-models";
import { modelsResponse } from "@/lib/openai-api/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: v1Route(
    {
      listing: true,
      summary: "Models this key may use, with their prices (OpenAI-compatible)",
      errors: [401, 429],
      response: modelsResponse,
    },
    ({ apiKey }) => listModels(apiKey),
  ),
});
