// Server-only: imports the server configuration. Never import this from a "use client" file.
import type { CallPrice, Features } from "@/components/types";
import { pricingSettings } from "@/lib/ai/pricing/pricing-settings";
import { aiSettings } from "@/lib/ai/settings";
import { flags } from "@/lib/config/flags";
import { CREDIT_COSTS } from "@/lib/config/pricing";

/** The feature flags the dashboard's client components need (booleans only; read on the server). */
export function dashboardFeatures(): Features {
  const f = flags();
  return {
    creditBased: f.creditBased,
    bonusCredits: f.bonusCredits && f.payments,
    userToggle: f.creditsUserToggle,
    aiChat: f.aiChat,
    aiAudio: f.aiAudio,
    aiImage: f.aiImage,
    aiContent: f.aiContent,
    aiRag: f.aiRag,
  };
}

/** What the dashboard says an operation costs: its fixed credits in flat pricing, "metered" in metered pricing, null without credits. */
export function callPrice(operation: keyof typeof CREDIT_COSTS): CallPrice {
  if (!flags().creditBased) return null;
  return pricingSettings().mode === "metered" ? "metered" : CREDIT_COSTS[operation];
}

/** The chat models a dashboard page offers, and the one selected first. */
export function chatModels(): { models: string[]; defaultModel: string } {
  const s = aiSettings();
  return { models: s.allowedModels, defaultModel: s.chatModel };
}
