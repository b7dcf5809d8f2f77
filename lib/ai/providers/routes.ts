import { env as envOf, fromEnv, type Env } from "@/lib/config/env";
import { modelCatalog, type ModelSpec } from "../catalog/models";
import { aiProvidersSchema, aiRoutesSchema, CONFIGURABLE_PROVIDER_TYPES, readSetting } from "./routing-settings";

/**
 * Which providers serve each model (docs/API-NOTES.md "Providers and routing"). Providers: the
 * built-in openai (OPENAI_API_KEY), anthropic (ANTHROPIC_API_KEY) and gemini (GEMINI_API_KEY), those of
 * AI_PROVIDERS, and offline, which serves every model when no provider at all is configured outside
 * production, or when AI_OFFLINE=true says so (the only way production runs without a provider). Routes: AI_ROUTES, else each catalog model's own vendor when that provider is
 * configured. A model without a route cannot be used.
 */
export type ProviderType = (typeof CONFIGURABLE_PROVIDER_TYPES)[number] | "offline";

/** The kinds of call a provider may serve. */
export type Capability = "chat" | "embeddings" | "images" | "transcription";

/** What each kind of provider offers (Anthropic: chat only; Gemini: chat and embeddings here). */
const OFFERS: Record<ProviderType, readonly Capability[]> = {
  openai: ["chat", "embeddings", "images", "transcription"],
  "openai-compatible": ["chat", "embeddings", "images", "transcription"],
  anthropic: ["chat"],
  gemini: ["chat", "embeddings"],
  offline: ["chat", "embeddings", "images", "transcription"],
};

/** The capability a catalog model's calls need. */
export const CAPABILITY_OF_KIND: Record<ModelSpec["kind"], Capability> = {
  chat: "chat",
  embedding: "embeddings",
  image: "images",
  transcription: "transcription",
};

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

function providersOf(e: Env): { providers: Map<string, ProviderConfig>; offline: boolean; problems: string[] } {
  const extra = readSetting("AI_PROVIDERS", aiProvidersSchema, e.AI_PROVIDERS);
  const providers = new Map<string, ProviderConfig>();
  if (e.OPENAI_API_KEY) providers.set("openai", { name: "openai", type: "openai", apiKey: e.OPENAI_API_KEY, baseURL: e.OPENAI_BASE_URL });
  if (e.ANTHROPIC_API_KEY)
    providers.set("anthropic", { name: "anthropic", type: "anthropic", apiKey: e.ANTHROPIC_API_KEY, baseURL: e.ANTHROPIC_BASE_URL });
  if (e.GEMINI_API_KEY) providers.set("gemini", { name: "gemini", type: "gemini", apiKey: e.GEMINI_API_KEY, baseURL: e.GEMINI_BASE_URL });
  for (const [name, p] of Object.entries(extra.value ?? {})) {
    providers.set(name, { name, type: p.type, apiKey: p.apiKey ?? "none", baseURL: p.baseUrl });
  }
  // Offline serves everything when nothing is configured outside production, or when asked to.
  const offline = e.AI_OFFLINE || (providers.size === 0 && !e.isProduction);
  if (offline) {
    providers.clear();
    providers.set("offline", { name: "offline", type: "offline" });
  }
  return { providers, offline, problems: extra.problems };
}

function routingOf(e: Env): Routing {
  const { providers, offline, problems: providerProblems } = providersOf(e);
  const configured = readSetting("AI_ROUTES", aiRoutesSchema, e.AI_ROUTES);
  const catalog = modelCatalog().models;
  const routes = new Map<string, Route[]>();
  const problems: string[] = [...providerProblems, ...configured.problems];
  const own = (model: string, provider: string): Route[] => [{ provider, model, upstreamModel: model }];
  for (const model of catalog.values()) {
    if (offline) routes.set(model.id, own(model.id, "offline"));
    else if (providers.has(model.vendor)) routes.set(model.id, own(model.id, model.vendor));
  }
  if (offline) return { providers, routes, offline, problems };
  for (const [model, list] of Object.entries(configured.value ?? {})) {
    const resolved: Route[] = [];
    for (const r of list) {
      const route = typeof r === "string" ? { provider: r } : r;
      const priced = route.model ?? model;
      if (!providers.has(route.provider))
        problems.push(`AI_ROUTES: ${model}: provider "${route.provider}" is not configured (set its key, or add it to AI_PROVIDERS)`);
      else if (!catalog.has(priced))
        problems.push(
          `AI_ROUTES: ${model}: "${priced}" is not in the model catalog, so a call it answers could not be priced (add it to AI_MODELS)`,
        );
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

/** Whether a route's provider offers a kind of call. */
export function routeOffers(route: Route, capability: Capability): boolean {
  const type = routing().providers.get(route.provider)?.type;
  return type ? OFFERS[type].includes(capability) : false;
}

/** The routes of a model whose provider offers `capability`, in order. */
export function routesOffering(model: string, capability: Capability): Route[] {
  return routesFor(model).filter((r) => routeOffers(r, capability));
}

/** The catalog models a call of `model` may be priced by: one per distinct route model that offers the call. */
export function routeModels(model: string, capability?: Capability): ModelSpec[] {
  const catalog = modelCatalog().models;
  const ids = new Set((capability ? routesOffering(model, capability) : routesFor(model)).map((r) => r.model));
  if (ids.size === 0) ids.add(model);
  return [...ids].map((id) => catalog.get(id)).filter((m): m is ModelSpec => Boolean(m));
}

/**
 * How many attempts of one call may each be billed: a route that fails before the provider accepts
 * the request (refused connection, an error status) bills nothing, and the call's own deadline ends
 * it; only AI_ROUTE_TIMEOUT_MS gives up on a provider that has the request and tries the next, so
 * then every attempt may be billed.
 */
export function billableAttempts(model: string, capability: Capability): number {
  const e = envOf();
  if (e.AI_ROUTE_TIMEOUT_MS <= 0) return 1;
  return Math.max(1, routesOffering(model, capability).length, e.AI_ROUTE_ATTEMPTS);
}

/** Chat models some provider serves, in catalog order. */
export function routedChatModels(): string[] {
  const r = routing();
  return [...modelCatalog().models.values()].filter((m) => m.kind === "chat" && r.routes.has(m.id)).map((m) => m.id);
}
