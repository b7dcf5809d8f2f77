import { CREDIT_COSTS } from "@/lib/config/pricing";
import { flatPrice } from "./operations";
import { publicConfig } from "@/lib/config/public-config";
import { findModel, PRICES_AS_OF, type ModelSpec } from "../catalog/models";
import { costBudgetMicros, flatChatLimits } from "./price-call";
import { pricingSettings } from "./pricing-settings";
import { aiSettings, PUBLIC_IMAGE_MODELS } from "../settings";

/**
 * How AI calls are priced, as the public configuration shows it: the mode, what a credit is worth,
 * and per model in use its list prices (USD) and, in flat mode, the largest chat each flat price
 * accepts. Edge-safe (GET /api/config/public runs on the edge runtime).
 */
export function publicAiPricing() {
  const s = pricingSettings();
  const settings = aiSettings();
  const ids = [
    ...settings.allowedModels,
    ...PUBLIC_IMAGE_MODELS.map((n) => settings.imageModels[n]),
    settings.transcriptionModel,
    settings.embeddingModel,
  ];
  const models = [...new Set(ids)].map((id) => findModel(id)).filter((m): m is ModelSpec => Boolean(m));
  return {
    mode: s.mode,
    creditValueUsd: s.creditValueUsd,
    markup: s.markup,
    minCreditsPerCall: s.minCreditsPerCall,
    pricesAsOf: PRICES_AS_OF,
    flatCosts: CREDIT_COSTS,
    models: models.map((m) => ({
      id: m.id,
      kind: m.kind,
      vendor: m.vendor,
      ...(m.contextWindow ? { contextWindow: m.contextWindow } : {}),
      ...(m.maxOutputTokens ? { maxOutputTokens: m.maxOutputTokens } : {}),
      ...(m.perMillionTokens ? { usdPerMillionTokens: m.perMillionTokens } : {}),
      ...(m.longContext ? { longContext: m.longContext } : {}),
      ...(m.perImage ? { usdPerImage: m.perImage } : {}),
      ...(m.perAudioMinute !== undefined ? { usdPerAudioMinute: m.perAudioMinute } : {}),
      ...(s.mode === "flat" && m.kind === "chat"
        ? { flatLimits: { chat: flatChatLimits(m, flatPrice("chat"), s), stream: flatChatLimits(m, flatPrice("stream"), s) } }
        : {}),
      ...(s.mode === "flat" && m.kind === "image" ? { flatBudgetUsd: costBudgetMicros(flatPrice("image_generation"), s) / 1e6 } : {}),
    })),
  };
}

/** GET /api/config/public: the pricing configuration, with the AI pricing in credit-based mode. */
export function publicConfigWithAiPricing() {
  const config = publicConfig();
  return "creditBased" in config ? { ...config, creditBased: { ...config.creditBased, aiPricing: publicAiPricing() } } : config;
}
