import { hostname } from "node:os";
import type { z } from "zod";
import { flatLimits } from "@/lib/ai/check-ai-config";
import { modelCatalog } from "@/lib/ai/catalog/models";
import { pricingSettings } from "@/lib/ai/pricing/pricing-settings";
import { routeStats } from "@/lib/ai/providers/route-stats";
import { routing } from "@/lib/ai/providers/routes";
import { env } from "@/lib/config/env";
import type { aiRoutesResponse } from "./schemas";

/**
 * The AI routing as configured (and, in flat mode, the largest call each flat price accepts per
 * model, after the AI_FLAT_MARGIN safety margin), with each route's recent error rate and latency on this instance
 * (lib/ai/providers/route-stats.ts; the Prometheus counters ai_route_attempts_total and ai_route_fallbacks_total
 * cover every instance). Provider keys are never shown: only each provider's type and API host.
 */
export function getAiRoutes(): z.infer<typeof aiRoutesResponse> {
  const r = routing();
  const e = env();
  const catalog = modelCatalog().models;
  return {
    instance: `${hostname()}:${process.pid}`,
    offline: r.offline,
    attempts: e.AI_ROUTE_ATTEMPTS,
    routeTimeoutMs: e.AI_ROUTE_TIMEOUT_MS,
    timeoutMs: e.AI_TIMEOUT_MS,
    providers: [...r.providers.values()].map((p) => ({ name: p.name, type: p.type, host: p.baseURL ? new URL(p.baseURL).host : null })),
    pricing: { mode: pricingSettings().mode, flatMargin: pricingSettings().flatMargin, flatLimits: flatLimits() },
    models: [...r.routes.entries()].map(([model, routes]) => ({
      model,
      kind: catalog.get(model)?.kind ?? "chat",
      routes: routes.map((route) => ({ ...route, stats: routeStats(model, route.provider) })),
    })),
  };
}
