import { methods, v1Route } from "@/lib/http/route";
import { getModel } from "@/lib/openai-api/list-models";
import { modelObject } from "@/lib/openai-api/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: v1Route(
    {
      feature: "apiKeys",
      rateLimit: "v1",
      concurrency: "none",
      summary: "One model this key may use, with its prices (OpenAI-compatible)",
      errors: [401, 404, 429],
      response: modelObject,
      responseHeaders: {},
    },
    ({ apiKey, params }) => getModel(apiKey, params.model),
  ),
});
