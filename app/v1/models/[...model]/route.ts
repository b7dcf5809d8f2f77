import { methods, route } from "@/lib/http/route";
import { getModel } from "@/lib/openai-api/list-models";
import { modelObject } from "@/lib/openai-api/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "apiKey",
      dialect: "openai",
      feature: "apiKeys",
      rateLimit: "v1",
      summary: "One model this key may use, with its prices (OpenAI-compatible)",
      tags: ["v1"],
      errors: [401, 404, 429],
      response: modelObject,
    },
    ({ apiKey, params }) => getModel(apiKey, params.model),
  ),
});
