import { describe, expect, it } from "vitest";
import * as publicConfigRoute from "@/app/api/config/public/route";
import * as pricingConfigRoute from "@/app/api/pricing/config/route";
import { setEnv } from "@/tests/helpers/env";
import { call } from "@/tests/helpers/http";

function withEnv<T>(values: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const restore = setEnv(values);
  return fn().finally(restore);
}

describe("GET /api/config/public", () => {
  it("runs on the edge runtime and is cached publicly for 3600 s", async () => {
    expect(publicConfigRoute.runtime).toBe("edge");
    const res = await call(publicConfigRoute.GET, { path: "/api/config/public" });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=3600, s-maxage=3600");
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
  });

  it("answers the credit-based model with creditBased details", async () => {
    const res = await call(publicConfigRoute.GET, { path: "/api/config/public" });
    expect(res.body).toMatchObject({ model: "credit_based", currency: "USD", features: { freeTierEnabled: true } });
    expect(res.body.tiers.map((t: { key: string }) => t.key)).toEqual(["free", "basic", "pro", "enterprise"]);
    for (const tier of res.body.tiers) {
      expect(typeof tier.name).toBe("string");
      expect(typeof tier.monthlyPrice).toBe("number");
    }
    expect(res.body.tierVisibility).toEqual({ free: true, basic: true, pro: true, enterprise: true });
    expect(res.body.creditBased).toMatchObject({ monthlyCredits: { free: 200 }, creditCosts: { chat: 15, imageGeneration: 80 } });
    expect(res.body.creditBased.bonusPackages.basic).toHaveLength(2);
    expect(res.body.classicSaas).toBeUndefined();
    // Variant ids and secrets stay server-side.
    expect(res.text).not.toMatch(/variant|secret|whsec/i);
  });

  it("answers the classic SaaS model with classicSaas details, and hides the free tier when disabled", async () => {
    await withEnv({ PUBLIC_PRICING_MODEL: "classic_saas", PUBLIC_FREE_TIER_ENABLED: "false" }, async () => {
      const res = await call(publicConfigRoute.GET, { path: "/api/config/public" });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ model: "classic_saas", features: { freeTierEnabled: false } });
      expect(res.body.classicSaas).toMatchObject({ trialDays: 14 });
      expect(res.body.creditBased).toBeUndefined();
      expect(res.body.tiers.map((t: { key: string }) => t.key)).toEqual(["basic", "pro", "enterprise"]);
      expect(res.body.tierVisibility.free).toBe(false);
    });
  });

  it("answers 405 for other methods", async () => {
    const res = await call(publicConfigRoute.POST, { method: "POST", path: "/api/config/public" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET");
  });
});

describe("GET /api/pricing/config", () => {
  it("answers the full catalog, cached 60 s with revalidation", async () => {
    const res = await call(pricingConfigRoute.GET, { path: "/api/pricing/config" });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=60, s-maxage=60, stale-while-revalidate=60");
    expect(res.body).toMatchObject({ model: "credit_based", currency: "USD", trialDays: 14, bonusExpiryDays: 365 });
    expect(res.body.tiers).toHaveLength(4);
    const pro = res.body.tiers.find((t: { key: string }) => t.key === "pro");
    expect(pro).toMatchObject({
      name: "Pro",
      monthlyPrice: 29.99,
      yearlyPrice: 299,
      monthlyCredits: 5000,
      variants: { monthly: "local-pro-monthly", yearly: "local-pro-yearly" },
      bonusMonthlyLimit: 10000,
    });
    expect(pro.bonusPackages).toHaveLength(2);
    expect(pro.bonusPackages[0]).toEqual({ credits: 2000, price: 14.99, variantId: "local-bonus-pro-2000" });
  });

  it("applies PRICING_CONFIG overrides", async () => {
    await withEnv(
      { PRICING_CONFIG: JSON.stringify({ currency: "EUR", tiers: { basic: { monthlyPrice: 12, variants: { monthly: "111" } } } }) },
      async () => {
        const res = await call(pricingConfigRoute.GET, { path: "/api/pricing/config" });
        expect(res.status).toBe(200);
        const basic = res.body.tiers.find((t: { key: string }) => t.key === "basic");
        expect(res.body.currency).toBe("EUR");
        expect(basic).toMatchObject({ monthlyPrice: 12, variants: { monthly: "111", yearly: "local-basic-yearly" } });
      },
    );
  });

  it("answers 500 naming the missing settings (never their values) with a real store and simulator variant ids", async () => {
    await withEnv({ LEMONSQUEEZY_API_KEY: "lsq_secret_value", LEMONSQUEEZY_STORE_ID: "1234" }, async () => {
      const res = await call(pricingConfigRoute.GET, { path: "/api/pricing/config" });
      expect(res.status).toBe(500);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.body.error).toMatch(/^Incomplete pricing configuration: missing /);
      expect(res.body.error).toContain("tiers.basic.variants.monthly");
      expect(res.body.error).toContain("tiers.enterprise.bonusPackages[1].variantId");
      expect(res.text).not.toContain("lsq_secret_value");
    });
  });

  it("answers 500 for an incomplete PRICING_CONFIG (an invalid one stops the server at start: tests/unit/config/check-configuration.test.ts)", async () => {
    await withEnv({ PRICING_CONFIG: "{not json" }, async () => {
      const res = await call(pricingConfigRoute.GET, { path: "/api/pricing/config" });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: "Internal server error", code: "internal" });
    });
    await withEnv({ PRICING_CONFIG: JSON.stringify({ tiers: { pro: { monthlyPrice: 0 } } }) }, async () => {
      const res = await call(pricingConfigRoute.GET, { path: "/api/pricing/config" });
      expect(res.status).toBe(500);
      expect(res.body.error).toBe("Incomplete pricing configuration: missing tiers.pro.monthlyPrice");
    });
  });

  it("answers 405 for other methods", async () => {
    const res = await call(pricingConfigRoute.DELETE, { method: "DELETE", path: "/api/pricing/config" });
    expect(res.status).toBe(405);
  });
});
