import { env } from "@/lib/config/env";
import { AppError } from "@/lib/errors";
import { aiSettings, type AiSettings } from "./settings";
import { createOfflineProvider } from "./provider-offline";
import { createOpenAiProvider } from "./provider-openai";
import type { AiProvider } from "./provider-types";

export * from "./provider-types";

let cached: { key: string; provider: AiProvider } | undefined;

/**
 * The configured provider. Throws AppError("provider_not_configured") in production without
 * OPENAI_API_KEY: callers resolve the provider BEFORE reserving credits, so nothing is charged.
 */
export function aiProvider(): AiProvider {
  const e = env();
  const settings = aiSettings();
  if (!e.OPENAI_API_KEY && e.isProduction) {
    throw new AppError("provider_not_configured", "AI provider is not configured: set OPENAI_API_KEY");
  }
  const key = providerKey(settings, e.OPENAI_API_KEY);
  if (cached?.key === key) return cached.provider;
  const provider = e.OPENAI_API_KEY
    ? createOpenAiProvider({ apiKey: e.OPENAI_API_KEY, baseURL: e.OPENAI_BASE_URL, settings })
    : createOfflineProvider(settings);
  cached = { key, provider };
  return provider;
}

function providerKey(settings: AiSettings, apiKey: string | undefined): string {
  return JSON.stringify([apiKey ?? "", env().OPENAI_BASE_URL ?? "", settings]);
}
