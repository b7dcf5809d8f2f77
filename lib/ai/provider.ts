import { env, fromEnv } from "@/lib/config/env";
import { AppError } from "@/lib/errors";
import { aiSettings } from "./settings";
import { createOfflineProvider } from "./provider-offline";
import { createOpenAiProvider } from "./provider-openai";
import type { AiProvider } from "./provider-types";

export * from "./provider-types";

/**
 * The configured provider, built once per configuration. Throws AppError("provider_not_configured")
 * in production without OPENAI_API_KEY: callers resolve the provider BEFORE reserving credits, so
 * nothing is charged.
 */
export function aiProvider(): AiProvider {
  const e = env();
  if (!e.OPENAI_API_KEY && e.isProduction) {
    throw new AppError("provider_not_configured", "AI provider is not configured: set OPENAI_API_KEY");
  }
  return configuredProvider();
}

const configuredProvider = fromEnv((e): AiProvider => {
  const settings = aiSettings();
  return e.OPENAI_API_KEY ? createOpenAiProvider({ apiKey: e.OPENAI_API_KEY, baseURL: e.OPENAI_BASE_URL, settings }) : createOfflineProvider(settings);
});
