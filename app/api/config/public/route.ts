import { publicConfigWithAiPricing } from "@/lib/ai/pricing/public-pricing";
import { edgeRoute, methods } from "@/lib/http/edge-route";
import { publicConfigResponse } from "@/lib/config/schemas";

export const runtime = "edge";
// Flags are read at request time (never frozen at build); CDNs cache the answer for an hour.
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: edgeRoute(
    {
      auth: "none",
      cache: "publicHour",
      summary: "Public pricing configuration",
      description:
        "Pricing model, currency, tiers, feature flags and tier visibility; creditBased or classicSaas details by model. creditBased.aiPricing: how AI calls are priced (flat or metered), a credit's USD value, and each model's list prices and flat limits.",
      tags: ["configuration"],
      response: publicConfigResponse,
    },
    () => publicConfigWithAiPricing(),
  ),
});
