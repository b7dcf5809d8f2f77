import { fromEnv } from "./env";

/** Feature flags of SPEC §1. A disabled feature makes its endpoints answer 404. */
export interface FeatureFlags {
  pricingModel: "credit_based" | "classic_saas";
  creditBased: boolean;
  bonusCredits: boolean;
  aiChat: boolean;
  aiAudio: boolean;
  aiImage: boolean;
  aiContent: boolean;
  aiRag: boolean;
  freeTier: boolean;
  /** Whether users may switch bonus auto-use themselves; when off, bonus credits are always used. */
  creditsUserToggle: boolean;
  /** API keys and the OpenAI-compatible API (/v1): not in SPEC. */
  apiKeys: boolean;
  /** Purchases (PAYMENTS_ENABLED): off hides every purchase button and the payment routes answer 503. */
  payments: boolean;
}

export const flags: () => FeatureFlags = fromEnv((e) => {
  const creditBased = e.PUBLIC_PRICING_MODEL === "credit_based";
  return {
    pricingModel: e.PUBLIC_PRICING_MODEL,
    creditBased,
    bonusCredits: creditBased && e.PUBLIC_BONUS_CREDITS_ENABLED,
    payments: e.PAYMENTS_ENABLED,
    aiChat: e.PUBLIC_AI_LLM_CHAT_ENABLED,
    aiAudio: e.PUBLIC_AI_AUDIO_INPUT_ENABLED,
    aiImage: e.PUBLIC_AI_IMAGE_GEN_ENABLED,
    aiContent: e.PUBLIC_AI_CONTENT_GEN_ENABLED,
    aiRag: e.PUBLIC_AI_RAG_CHAT_ENABLED,
    freeTier: e.PUBLIC_FREE_TIER_ENABLED,
    creditsUserToggle: e.CREDITS_USER_TOGGLE_ENABLED,
    apiKeys: e.API_KEYS_ENABLED,
  };
});

export type FlagName = Exclude<keyof FeatureFlags, "pricingModel">;
