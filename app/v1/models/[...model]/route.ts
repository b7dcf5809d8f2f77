import { methods, v1Route } from "@/lib/http/route";
import { getModel } from "@/lib/openai-api/list-models";
import { modelObject } from "@/lib/openai-api/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: v1Route(
    {
      listing: true,
      summary: "One model this key may use, with its prices (OpenAI-compatible)",
      errors: [401, 404, 429],
      response: modelObject,
    },
    ({ apiKey, params }) => getModel(apiKey, params.model),
  ),
});
