import { fromEnv, type Env } from "@/lib/config/env";
import { modelCatalog, type ModelSpec } from "./models";

/**
 * Which providers serve each model (docs/API-NOTES.md "Providers and routing"). Providers: the
 * built-in openai (OPENAI_API_KEY), anthropic (ANTHROPIC_API_KEY) and gemini (GEMINI_API_KEY), those of
 * AI_PROVIDERS, and offline, which serves every model when no provider at all is configured outside
 * production, or when AI_OFFLINE=true says so (the only way production runs without a provider). Routes: AI_ROUTES, else each catalog model's own vendor when that provider is
 * configured. A model without a route cannot be used.
 */
export type ProviderType = "openai" | "openai-compatible" | "anthropic" | "gemini" | "offline";

export interface ProviderConfig {
  name: string;
  type: ProviderType;
  apiKey?: string;
  baseURL?: string;
}

export interface Route {
  /** The provider's name. */
  provider: string;
  /** The catalog model the call is priced by when this route answers. */
  model: string;
  /** The model id sent to the provider. */
  upstreamModel: string;
}

export interface Routing {
  providers: Map<string, ProviderConfig>;
  routes: Map<string, Route[]>;
  /** True when nothing is configured and the offline provider serves every model. */
  offline: boolean;
  problems: string[];
}

function providersOf(e: Env): { providers: Map<string, ProviderConfig>; offline: boolean } {
  const providers = new Map<string, ProviderConfig>();
  if (e.OPENAI_API_KEY) providers.set("openai", { name: "openai", type: "openai", apiKey: e.OPENAI_API_KEY, baseURL: e.OPENAI_BASE_URL });
  if (e.ANTHROPIC_API_KEY) providers.set("anthropic", { name: "anthropic", type: "anthropic", apiKey: e.ANTHROPIC_API_KEY, baseURL: e.ANTHROPIC_BASE_URL });
  if (e.GEMINI_API_KEY) providers.set("gemini", { name: "gemini", type: "gemini", apiKey: e.GEMINI_API_KEY, baseURL: e.GEMINI_BASE_URL });
  for (const [name, p] of Object.entries(e.AI_PROVIDERS ?? {})) {
    providers.set(name, { name, type: p.type, apiKey: p.apiKey ?? "none", baseURL: p.baseUrl });
  }
  // Offline serves everything when nothing is configured outside production, or when asked to.
  const offline = e.AI_OFFLINE || (providers.size === 0 && !e.isProduction);
  if (offline) {
    providers.clear();
    providers.set("offline", { name: "offline", type: "offline" });
  }
  return { providers, offline };
}

function routingOf(e: Env): Routing {
  const { providers, offline } = providersOf(e);
  const catalog = modelCatalog().models;
  const routes = new Map<string, Route[]>();
  const problems: string[] = [];
  const own = (model: string, provider: string): Route[] => [{ provider, model, upstreamModel: model }];
  for (const model of catalog.values()) {
    if (offline) routes.set(model.id, own(model.id, "offline"));
    else if (providers.has(model.vendor)) routes.set(model.id, own(model.id, model.vendor));
  }
  if (offline) return { providers, routes, offline, problems };
  for (const [model, list] of Object.entries(e.AI_ROUTES ?? {})) {
    const resolved: Route[] = [];
    for (const r of list) {
      const route = typeof r === "string" ? { provider: r } : r;
      const priced = route.model ?? model;
      if (!providers.has(route.provider)) problems.push(`AI_ROUTES: ${model}: provider "${route.provider}" is not configured (set its key, or add it to AI_PROVIDERS)`);
      else if (!catalog.has(priced)) problems.push(`AI_ROUTES: ${model}: "${priced}" is not in the model catalog, so a call it answers could not be priced (add it to AI_MODELS)`);
      else resolved.push({ provider: route.provider, model: priced, upstreamModel: route.upstreamModel ?? priced });
    }
    if (!catalog.has(model)) problems.push(`AI_ROUTES: ${model}: not in the model catalog (add it to AI_MODELS)`);
    else if (resolved.length) routes.set(model, resolved);
  }
  return { providers, routes, offline, problems };
}

export const routing: () => Routing = fromEnv(routingOf);

/** The routes of a model, in order (empty: no provider serves it). */
export function routesFor(model: string): Route[] {
  return routing().routes.get(model) ?? [];
}

/** The catalog models a call of `model` may be priced by: one per distinct route model. */
export function routeModels(model: string): ModelSpec[] {
  const catalog = modelCatalog().models;
  const ids = new Set(routesFor(model).map((r) => r.model));
  if (ids.size === 0) ids.add(model);
  return [...ids].map((id) => catalog.get(id)).filter((m): m is ModelSpec => Boolean(m));
}

/** Chat models some provider serves, in catalog order. */
export function routedChatModels(): string[] {
  const r = routing();
  return [...modelCatalog().models.values()].filter((m) => m.kind === "chat" && r.routes.has(m.id)).map((m) => m.id);
}
