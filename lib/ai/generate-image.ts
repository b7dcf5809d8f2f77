import { CREDIT_COSTS } from "@/lib/config/pricing";
import { AppError, isAppError } from "@/lib/errors";
import { isAbortError } from "./abort";
import { openCharge, refundCharge, settleCharge } from "./ai-charge";
import { findModel } from "./models";
import { OFFLINE_MODEL_PREFIX, aiProvider } from "./provider";
import { countTokens } from "./tokens";
import { dearestImage } from "./quote-call";
import { quoteImageRoutes } from "./quote-routes";
import type { ImageBody } from "./schemas";
import { aiSettings } from "./settings";

export interface ImageAnswer {
  image: string;
  model: string;
  size: string;
  quality: string;
  format: string;
  revised_prompt: string;
  credits_used: number;
  credits_remaining: number;
}

const MIME = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp" } as const;

/**
 * POST /api/ai/image-gen: the image's worst case (quality and size "auto" count as the dearest) is
 * quoted and reserved first (flat: 80 credits, refusing what 80 credits do not pay for; 402 without an
 * upstream call), refunded when the provider fails, times out (60 s) or refuses (content policy ->
 * 400), and settled at the price of what was rendered.
 */
export async function generateImage(input: { userId: string; body: ImageBody; signal?: AbortSignal }): Promise<ImageAnswer> {
  const provider = aiProvider();
  const settings = aiSettings();
  const { body } = input;
  const providerModel = settings.imageModels[body.model];
  const quote = quoteImageRoutes(providerModel, { prompt: body.prompt, size: body.size, quality: body.quality, flat: CREDIT_COSTS.imageGeneration });
  const charge = await openCharge({
    userId: input.userId,
    operation: "image_generation",
    quote,
    metadata: { publicModel: body.model, provider: provider.name },
  });
  let result;
  try {
    result = await provider.generateImage({
      prompt: body.prompt,
      model: providerModel,
      size: body.size,
      quality: body.quality,
      outputFormat: body.output_format,
      background: body.background,
      signal: input.signal,
      timeoutMs: settings.longTimeoutMs,
    });
  } catch (error) {
    await refundCharge(charge, isAppError(error) ? error.code : "aborted");
    if (isAbortError(error)) throw new AppError("bad_request", "The request was aborted by the client");
    throw error;
  }
  // Priced as rendered, by the route that answered: the quality and size the provider reports, else
  // what was asked ("auto": the dearest).
  const model = findModel(result.route?.model ?? providerModel) ?? quote.model;
  const rendered = dearestImage(model, result.quality ?? body.quality, result.size ?? body.size);
  const settled = await settleCharge(
    charge,
    { promptTokens: countTokens(body.prompt), images: { ...rendered, count: 1 } },
    { answeredBy: result.route, metadata: { format: result.format }, background: true },
  );
  return {
    image: `data:${MIME[result.format]};base64,${result.b64}`,
    model: provider.offline ? `${OFFLINE_MODEL_PREFIX}${body.model}` : body.model,
    size: provider.offline && body.size === "auto" ? "1024x1024" : body.size,
    quality: body.quality,
    format: result.format,
    revised_prompt: result.revisedPrompt,
    credits_used: settled.credits,
    credits_remaining: settled.remaining,
  };
}
