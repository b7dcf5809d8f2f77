import type { ApiKeyPrincipal } from "@/lib/api-keys/authenticate-api-key";
import type { ChargeSlot } from "@/lib/db/ai-slots";
import { renderImage } from "@/lib/ai/images/generate-image";
import { aiSettings } from "@/lib/ai/settings";
import { chargeKey, requireKeyModel } from "./key-models";
import type { ImagesBody } from "./schemas";
import type { RequestTags } from "./request-tags";

/**
 * POST /v1/images/generations: one GPT Image picture, returned as base64 (b64_json), charged like the
 * session API's image generation (flat 80 credits; metered: what was rendered). The model defaults to
 * the one behind image-model-1.
 */
export async function createImage(input: {
  key: ApiKeyPrincipal;
  slot?: ChargeSlot | null;
  body: ImagesBody;
  signal?: AbortSignal;
  tags?: RequestTags;
}) {
  const { key, body } = input;
  const model = requireKeyModel(key, body.model ?? aiSettings().imageModels["image-model-1"], "images");
  const size = body.size ?? "1024x1024";
  const quality = body.quality ?? "auto";
  const outputFormat = body.output_format ?? "png";
  const { result, credits, remaining } = await renderImage({
    userId: key.userId,
    apiKey: chargeKey(key),
    slot: input.slot,
    model: model.id,
    prompt: body.prompt,
    size,
    quality,
    outputFormat,
    background: body.background === "transparent" ? "transparent" : "opaque",
    metadata: { api: "v1", ...input.tags },
    signal: input.signal,
  });
  return {
    credits: { credits, remaining },
    answer: {
      created: Math.floor(Date.now() / 1000),
      data: [{ b64_json: result.b64, revised_prompt: result.revisedPrompt }],
      background: body.background === "transparent" ? "transparent" : "opaque",
      output_format: result.format,
      quality: result.quality ?? quality,
      size: result.size ?? size,
    },
  };
}
