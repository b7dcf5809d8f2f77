// Server-only: imports the server configuration. Never import this from a "use client" file.
import type { Features } from "@/components/types";
import { flags } from "@/lib/config/flags";

/** The feature flags the dashboard's client components need (booleans only; read on the server). */
export function dashboardFeatures(): Features {
  const f = flags();
  return {
    creditBased: f.creditBased,
    bonusCredits: f.bonusCredits,
    userToggle: f.creditsUserToggle,
    aiChat: f.aiChat,
    aiAudio: f.aiAudio,
    aiImage: f.aiImage,
    aiContent: f.aiContent,
    aiRag: f.aiRag,
  };
}
