import { openCharge, type ChargeAccount, type ChargeKey } from "../pricing/ai-charge";
import type { ChargeSlot } from "@/lib/db/ai-slots";
import { oneShotFailure, runChargedCall } from "../charged-call";
import { billOneShot } from "../pricing/meter";
import { findModel } from "../catalog/models";
import {
  OFFLINE_MODEL_PREFIX,
  aiProvider,
  type ImageBackground,
  type ImageFormat,
  type ImageQuality,
  type ImageResult,
  type ImageSize,
} from "../providers/provider";
import { countTokens } from "../pricing/tokens";
import { dearestImage } from "../pricing/quote-call";
import { quoteImageRoutes } from "../pricing/quote-routes";
import type { ImageBody } from "../schemas";
import { aiSettings } from "../settings";

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

export interface RenderImageInput {
  userId: string;
  apiKey?: ChargeKey;
  /** The wallet charged when not the user's own (an organisation's). */
  account?: ChargeAccount;
  /** The request's AI slot still to take across instances (with the charge). */
  slot?: ChargeSlot | null;
  /** The provider (catalog) model. */
  model: string;
  prompt: string;
  size: ImageSize;
  quality: ImageQuality;
  outputFormat: ImageFormat;
  background: ImageBackground;
  /** Ledger metadata (the public model name the client asked for). */
  metadata?: Record<string, unknown>;
  signal?: AbortSignal;
}

/**
 * One charged image: its worst case (quality and size "auto" count as the dearest) is quoted and
 * reserved first (flat: 80 credits, refusing what 80 credits do not pay for; 402 without an upstream
 * call), refunded when the provider fails, times out (60 s) or refuses (content policy -> 400), and
 * settled at the price of what was rendered.
 */
export async function renderImage(input: RenderImageInput): Promise<{ result: ImageResult; credits: number; remaining: number }> {
  const provider = aiProvider();
  const quote = quoteImageRoutes(input.model, {
    prompt: input.prompt,
    size: input.size,
    quality: input.quality,
    operation: "image_generation",
  });
  const charge = await openCharge({
    userId: input.userId,
    apiKey: input.apiKey,
    account: input.account,
    slot: input.slot,
    operation: "image_generation",
    quote,
    metadata: { ...input.metadata, provider: provider.name },
  });
  const { value: result, settled } = await runChargedCall({
    charge,
    signal: input.signal,
    call: (signal) =>
      provider.generateImage({
        prompt: input.prompt,
        model: input.model,
        size: input.size,
        quality: input.quality,
        outputFormat: input.outputFormat,
        background: input.background,
        signal,
        timeoutMs: aiSettings().longTimeoutMs,
      }),
    // Priced as rendered, by the route that answered: the quality and size the provider reports,
    // else what was asked ("auto": the dearest).
    answered: (r) => {
      const model = findModel(r.route?.model ?? input.model) ?? quote.model;
      const rendered = dearestImage(model, r.quality ?? input.quality, r.size ?? input.size);
      const usage = { promptTokens: countTokens(input.prompt, model.tokenizer), images: { ...rendered, count: 1 } };
      return {
        attempts: billOneShot(quote, { route: r.route ?? null, usage, reported: Boolean(r.quality && r.size) }, undefined, r.spent),
        complete: true,
      };
    },
    // Cut after the provider had it (the client left, the 60-second deadline): the image's worst case.
    failed: (error) => oneShotFailure(quote, error),
    settle: (r) => ({ metadata: { format: r.format } }),
  });
  return { result, credits: settled.credits, remaining: settled.remaining };
}

/** POST /api/ai/image-gen: one image of a public model (image-model-1, ...), as a data URL. */
export async function generateImage(input: {
  userId: string;
  account?: ChargeAccount;
  slot?: ChargeSlot | null;
  body: ImageBody;
  signal?: AbortSignal;
}): Promise<ImageAnswer> {
  const { body } = input;
  const provider = aiProvider();
  const { result, credits, remaining } = await renderImage({
    userId: input.userId,
    account: input.account,
    slot: input.slot,
    model: aiSettings().imageModels[body.model],
    prompt: body.prompt,
    size: body.size,
    quality: body.quality,
    outputFormat: body.output_format,
    background: body.background,
    metadata: { publicModel: body.model },
    signal: input.signal,
  });
  return {
    image: `data:${MIME[result.format]};base64,${result.b64}`,
    model: provider.offline ? `${OFFLINE_MODEL_PREFIX}${body.model}` : body.model,
    size: provider.offline && body.size === "auto" ? "1024x1024" : body.size,
    quality: body.quality,
    format: result.format,
    revised_prompt: result.revisedPrompt,
    credits_used: credits,
    credits_remaining: remaining,
  };
}
