import { env, fromEnv } from "@/lib/config/env";
import { AppError } from "@/lib/errors";
import { createAnthropicProvider } from "./provider-anthropic";
import { createGeminiProvider } from "./provider-gemini";
import { createOfflineProvider } from "./provider-offline";
import { createOpenAiProvider } from "./provider-openai";
import type { AiProvider } from "./provider-types";
import { createRouter } from "./router";
import { routing, type ProviderConfig } from "./routes";
import { aiSettings } from "../settings";

export * from "./provider-types";

/**
 * The provider every AI feature calls: the router over the configured providers (lib/ai/providers/router.ts),
 * built once per configuration. Throws AppError("provider_not_configured") in production with no
 * provider and no AI_OFFLINE: callers resolve the provider BEFORE reserving credits, so nothing is
 * charged.
 */
export function aiProvider(): AiProvider {
  if (routing().providers.size === 0) {
    throw new AppError(
      "provider_not_configured",
      "AI provider is not configured: set OPENAI_API_KEY (or ANTHROPIC_API_KEY, GEMINI_API_KEY, AI_PROVIDERS)",
    );
  }
  return configuredRouter();
}

/** One adapter per configured provider, by its type (each vendor SDK lives in its adapter file). */
function createAdapter(config: ProviderConfig): AiProvider {
  const settings = aiSettings();
  switch (config.type) {
    case "offline":
      return createOfflineProvider(settings);
    case "anthropic":
      return createAnthropicProvider({
        name: config.name,
        apiKey: config.apiKey as string,
        baseURL: config.baseURL,
        timeoutMs: settings.timeoutMs,
      });
    case "gemini":
      return createGeminiProvider({
        name: config.name,
        apiKey: config.apiKey as string,
        baseURL: config.baseURL,
        timeoutMs: settings.timeoutMs,
      });
    default:
      return createOpenAiProvider({ name: config.name, apiKey: config.apiKey as string, baseURL: config.baseURL, settings });
  }
}

const configuredRouter = fromEnv((): AiProvider => {
  const r = routing();
  const adapters = new Map<string, AiProvider>();
  const adapterFor = (name: string): AiProvider => {
    let adapter = adapters.get(name);
    if (!adapter) {
      const config = r.providers.get(name);
      if (!config) throw new AppError("misconfigured", `AI provider "${name}" is not configured`);
      adapters.set(name, (adapter = createAdapter(config)));
    }
    return adapter;
  };
  return { ...createRouter(adapterFor), offline: r.offline, name: r.offline ? "offline" : "router" };
});

/** Whether AI calls are answered by the offline provider (no provider configured). */
export function aiOffline(): boolean {
  return routing().offline || env().AI_OFFLINE;
}
