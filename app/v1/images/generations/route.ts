import { methods, v1Route } from "@/lib/http/route";
import { createImage } from "@/lib/openai-api/create-image";
import { charged } from "@/lib/openai-api/route-spec";
import { requestTags } from "@/lib/openai-api/request-tags";
import { imagesBody, imagesResponse } from "@/lib/openai-api/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: v1Route(
    {
      keyKind: "images",
      feature: "aiImage",
      body: imagesBody,
      summary: "Image generation, OpenAI-compatible (GPT Image, b64_json)",
      description:
        "One image per call, returned as base64. Flat: 80 credits (a quality or size 80 credits do not pay for is refused); metered: what was rendered.",
      response: imagesResponse,
    },
    async ({ apiKey, aiSlot, body, req }) =>
      charged(await createImage({ key: apiKey, slot: aiSlot, body, signal: req.signal, tags: requestTags(req, body) })),
  ),
});
