import { CREDIT_COSTS } from "@/lib/config/pricing";
import { refundReservation, reserveCredits, settleReservation } from "@/lib/credits";
import { AppError, isAppError } from "@/lib/errors";
import { isAbortError } from "./abort";
import { OFFLINE_MODEL_PREFIX, aiProvider } from "./provider";
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
 * POST /api/ai/image-gen: 80 credits reserved first (402 without an upstream call), refunded when the
 * provider fails, times out (60 s) or refuses (content policy -> 400).
 */
export async function generateImage(input: { userId: string; body: ImageBody; signal?: AbortSignal }): Promise<ImageAnswer> {
  const provider = aiProvider();
  const settings = aiSettings();
  const { body } = input;
  const providerModel = settings.imageModels[body.model];
  const cost = CREDIT_COSTS.imageGeneration;
  const reservation = await reserveCredits({
    userId: input.userId,
    amount: cost,
    operation: "image_generation",
    metadata: { model: body.model, providerModel, provider: provider.name },
  });
  try {
    const result = await provider.generateImage({
      prompt: body.prompt,
      model: providerModel,
      size: body.size,
      quality: body.quality,
      outputFormat: body.output_format,
      background: body.background,
      signal: input.signal,
      timeoutMs: settings.longTimeoutMs,
    });
    await settleReservation(reservation, { format: result.format });
    return {
      image: `data:${MIME[result.format]};base64,${result.b64}`,
      model: provider.offline ? `${OFFLINE_MODEL_PREFIX}${body.model}` : body.model,
      size: provider.offline && body.size === "auto" ? "1024x1024" : body.size,
      quality: body.quality,
      format: result.format,
      revised_prompt: result.revisedPrompt,
      credits_used: reservation.charged ? cost : 0,
      credits_remaining: reservation.remaining,
    };
  } catch (error) {
    await refundReservation(reservation, { reason: isAppError(error) ? error.code : "aborted" });
    if (isAbortError(error)) throw new AppError("bad_request", "The request was aborted by the client");
    throw error;
  }
}
