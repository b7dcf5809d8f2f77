import type { ApiKeyPrincipal } from "@/lib/api-keys/authenticate-api-key";
import { flatLimits } from "@/lib/ai/check-ai-config";
import { KIND_OF_MODEL } from "@/lib/ai/providers/offered-models";
import type { ModelSpec } from "@/lib/ai/catalog/models";
import { pricingSettings } from "@/lib/ai/pricing/pricing-settings";
import { flatPrice } from "@/lib/ai/pricing/operations";
import { AppError } from "@/lib/errors";
import { modelsForKey } from "./key-models";

/** The catalog's dates are not models' release dates: OpenAI's `created` is informational, so one fixed date. */
const CREATED = Math.floor(Date.UTC(2026, 10, 26) / 1000);

/** What one call of each kind costs in flat mode (chat: the JSON call; streams 20, with an image 30). */
const FLAT_BY_KIND = {
  chat: flatPrice("chat"),
  embeddings: flatPrice("embeddings"),
  images: flatPrice("image_generation"),
  transcription: flatPrice("speech_to_text"),
} as const;

function toModelObject(m: ModelSpec) {
  const s = pricingSettings();
  const mode = s.mode;
  const kind = KIND_OF_MODEL[m.kind];
  const usd: Record<string, unknown> = {};
  if (m.perMillionTokens) usd.per_million_tokens = m.perMillionTokens;
  if (m.perImage) usd.per_image = m.perImage;
  if (m.perAudioMinute !== undefined) usd.per_audio_minute = m.perAudioMinute;
  return {
    id: m.id,
    object: "model" as const,
    created: CREATED,
    owned_by: m.vendor,
    kind,
    pricing: {
      mode,
      credits_per_call: mode === "flat" ? FLAT_BY_KIND[kind] : null,
      // Metered: a call costs its list-price usage times this, rounded up, and at least the minimum.
      credits_per_usd: mode === "metered" ? s.markup / s.creditValueUsd : null,
      min_credits_per_call: mode === "metered" ? s.minCreditsPerCall : null,
      // Flat mode: the largest call each flat price accepts (after the AI_FLAT_MARGIN safety margin).
      flat_limits: mode === "flat" ? limitsOf(m.id) : null,
      usd,
    },
  };
}

function limitsOf(model: string) {
  return flatLimits()
    .filter((l) => l.model === model)
    .map((l) => ({
      operation: l.operation,
      credits: l.credits,
      ...(l.maxInputTokens !== undefined ? { max_input: l.maxInputTokens, input_unit: l.inputUnit ?? "tokens" } : {}),
      ...(l.maxOutputTokens !== undefined ? { max_output_tokens: l.maxOutputTokens } : {}),
      ...(l.largestImage !== undefined ? { largest_image: l.largestImage } : {}),
      ...(l.maxMinutes !== undefined ? { max_audio_minutes: l.maxMinutes } : {}),
    }));
}

/** GET /v1/models: what this key may use, with our prices. */
export async function listModels(key: ApiKeyPrincipal) {
  return { object: "list" as const, data: (await modelsForKey(key)).map(toModelObject) };
}

/** GET /v1/models/{model}. */
export async function getModel(key: ApiKeyPrincipal, id: string) {
  const found = (await modelsForKey(key)).find((m) => m.id === id);
  if (!found)
    throw new AppError("not_found", `The model \`${id}\` does not exist or you do not have access to it`, {
      param: "model",
      reason: "model_not_found",
    });
  return toModelObject(found);
}
