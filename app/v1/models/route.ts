import { methods, route } from "@/lib/http/route";
import { listModels } from "@/lib/openai-api/list-models";
import { modelsResponse } from "@/lib/openai-api/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "apiKey",
      dialect: "openai",
      feature: "apiKeys",
      rateLimit: "v1",
      summary: "Models this key may use, with their prices (OpenAI-compatible)",
      tags: ["v1"],
      errors: [401, 429],
      response: modelsResponse,
    },
    ({ apiKey }) => listModels(apiKey),
  ),
});
