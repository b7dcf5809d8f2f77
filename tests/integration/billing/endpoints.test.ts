import { afterAll, describe, expect, it } from "vitest";
import { GET as bonusPackages, POST as bonusPackagesPost } from "@/app/api/credits/bonus-packages/route";
import { POST as creditsCheckout } from "@/app/api/credits/checkout/route";
import { POST as createUrl } from "@/app/api/checkout/create-url/route";
import { POST as cancel } from "@/app/api/payments/cancel-subscription/route";
import { POST as changePlan } from "@/app/api/payments/change-plan/route";
import { GET as guestCheckout, POST as createCheckout } from "@/app/api/payments/create-checkout/route";
import { POST as portalSession } from "@/app/api/payments/create-portal-session/route";
import { POST as customerPortal } from "@/app/api/payments/customer-portal/route";
import { GET as debug } from "@/app/api/payments/debug/route";
import { GET as subscription } from "@/app/api/payments/subscription/route";
import { POST as completeCheckout } from "@/app/api/simulator/checkout/route";
import { GET as publicConfigRoute } from "@/app/api/config/public/route";
import { configurationProblems } from "@/lib/server/check-configuration";
import { grantBonusPurchase } from "@/lib/credits";
import { closeDb, db } from "@/lib/db/client";
import type { NextRouteHandler } from "@/lib/http/route";
import { setEnv } from "@/tests/helpers/env";
import { call, sessionCookie, signIn } from "@/tests/helpers/http";

afterAll(closeDb);

const ghost = () => sessionCookie({ id: "00000000-0000-0000-0000-00000000dead", email: "ghost@example.com" });

async function subscribe(userId: string, variantId = "local-basic-monthly", status = "active") {
  const prisma = await db();
  return prisma.subscription.create({
    data: {
      userId,
      providerSubscriptionId: `sub-${userId}`,
      status,
      tier: variantId.split("-")[1],
      variantId,
      currentPeriodEnd: new Date(Date.now() + 20 * 86_400_000),
      provider: "simulator",
    },
  });
}

describe("401 without a session on every session endpoint", () => {
  const cases: Array<[string, NextRouteHandler, string, unknown]> = [
    ["create-url", createUrl, "POST", { variantId: "local-basic-monthly", tier: "basic" }],
    ["create-checkout", createCheckout, "POST", { variantId: "local-basic-monthly" }],
    ["cancel-subscription", cancel, "POST", undefined],
    ["change-plan", changePlan, "POST", { newVariantId: "local-pro-monthly" }],
    ["create-portal-session", portalSession, "POST", undefined],
    ["customer-portal", customerPortal, "POST", undefined],
    ["subscription", subscription, "GET", undefined],
    ["bonus-packages", bonusPackages, "GET", undefined],
    ["credits/checkout", creditsCheckout, "POST", { variantId: "local-bonus-basic-500" }],
  ];
  it.each(cases)("%s", async (_name, handler, method, body) => {
    const res = await call(handler, { method, path: "/api/x", body });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Authentication required", code: "unauthorized" });
  });
});

describe("POST /api/checkout/create-url", () => {
  it("answers the checkout URL for a plan variant of the tier; 400 for invalid variant or tier; 405 for GET", async () => {
    const { cookie } = await signIn();
    const ok = await call(createUrl, { path: "/api/checkout/create-url", cookie, body: { variantId: "local-pro-yearly", tier: "pro" } });
    expect(ok.status).toBe(200);
    expect(ok.body.checkoutUrl).toMatch(/^http:\/\/localhost:3000\/simulator\/checkout\//);
    expect(ok.headers.get("x-ratelimit-limit")).toBe("20");
    for (const [body, message] of [
      [{ variantId: "local-pro-yearly", tier: "basic" }, /belongs to tier pro/],
      [{ variantId: "nope", tier: "pro" }, /not a plan/],
      [{ variantId: "local-bonus-pro-2000", tier: "pro" }, /bonus package/],
      [{ variantId: "local-pro-yearly", tier: "free" }, /Invalid tier/],
      [{ variantId: "local-pro-yearly", tier: "gold" }, /Invalid tier/],
      [{ tier: "pro" }, /variantId/],
      [{ variantId: "local-pro-yearly" }, /tier/],
    ] as const) {
      const res = await call(createUrl, { path: "/api/checkout/create-url", cookie, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    expect(
      (
        await call(createUrl, {
          path: "/api/checkout/create-url",
          cookie,
          rawBody: "{oops",
          headers: { "content-type": "application/json" },
          method: "POST",
        })
      ).status,
    ).toBe(400);
  });

  it("answers 429 over the payments limit of 20 per user per hour", async () => {
    const { cookie } = await signIn();
    let last = 0;
    for (let i = 0; i < 20; i++)
      last = (await call(createUrl, { path: "/api/checkout/create-url", cookie, body: { variantId: "bad", tier: "pro" } })).status;
    expect(last).toBe(400);
    const res = await call(createUrl, { path: "/api/checkout/create-url", cookie, body: { variantId: "local-pro-yearly", tier: "pro" } });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBeTruthy();
  });
});

describe("POST and GET /api/payments/create-checkout", () => {
  it("POST: 200, 400 validation, 400 foreign redirect, 401 when the session's user no longer exists", async () => {
    const { cookie } = await signIn();
    const ok = await call(createCheckout, {
      path: "/api/payments/create-checkout",
      cookie,
      body: { variantId: "local-basic-monthly", redirectUrl: "/welcome", productId: "p1" },
    });
    expect(ok.status).toBe(200);
    const id = ok.body.checkoutUrl.split("/").pop();
    const done = await call(completeCheckout, { method: "POST", path: "/api/simulator/checkout", body: { id } });
    expect(done.body.redirectUrl).toBe("http://localhost:3000/welcome");
    expect((await call(createCheckout, { path: "/api/payments/create-checkout", cookie, body: {} })).status).toBe(400);
    expect((await call(createCheckout, { path: "/api/payments/create-checkout", cookie, body: { variantId: 5 } })).status).toBe(400);
    expect((await call(createCheckout, { path: "/api/payments/create-checkout", cookie, body: { variantId: "unknown" } })).status).toBe(
      400,
    );
    const foreign = await call(createCheckout, {
      path: "/api/payments/create-checkout",
      cookie,
      body: { variantId: "local-basic-monthly", redirectUrl: "https://evil.example/x" },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatch(/redirectUrl/);
    const twice = await call(createCheckout, { path: "/api/payments/create-checkout", cookie, body: { variantId: "local-pro-monthly" } });
    expect(twice.status).toBe(400);
    expect(twice.body.error).toMatch(/Already subscribed to the Basic plan/);
    const gone = await call(createCheckout, {
      path: "/api/payments/create-checkout",
      cookie: await ghost(),
      body: { variantId: "local-basic-monthly" },
    });
    // A session whose user was deleted is no session.
    expect(gone.status).toBe(401);
    expect(gone.body.error).toBe("Authentication required");
  });

  it("GET: exactly 302 to the checkout; 400 for an invalid tier or billing; no session needed", async () => {
    const ok = await call(guestCheckout, { path: "/api/payments/create-checkout?tier=basic" });
    expect(ok.status).toBe(302);
    expect(ok.headers.get("location")).toMatch(/\/simulator\/checkout\//);
    for (const q of ["", "tier=free", "tier=gold", "tier=pro&billing=weekly", "tier=pro&email=nope"]) {
      const res = await call(guestCheckout, { path: `/api/payments/create-checkout?${q}` });
      expect(res.status, q).toBe(400);
      expect(res.body.error).toMatch(/Invalid query/);
    }
  });
});

describe("payment provider selection", () => {
  it("production needs Lemon Squeezy, the simulator on purpose, or PAYMENTS_ENABLED=false; never a 500 at checkout", async () => {
    const { cookie } = await signIn();
    const checkout = () =>
      call(createCheckout, { path: "/api/payments/create-checkout", cookie, body: { variantId: "local-basic-monthly" } });
    const paymentProblem = (problems: string[]) =>
      problems.filter((p) => /LEMONSQUEEZY_API_KEY|PAYMENT_WEBHOOK_SECRET|PAYMENTS_ENABLED/.test(p));
    const restore = setEnv({ APP_ENV: "production", CRON_SECRET: "c", PAYMENT_SIMULATOR_ENABLED: undefined, OPENAI_API_KEY: "sk-test" });
    try {
      // The configuration check refuses to start (it names the settings); nothing was sold meanwhile.
      expect(paymentProblem(configurationProblems())).toEqual([
        expect.stringMatching(/^Payments: production needs a payment provider.*PAYMENTS_ENABLED=false/),
      ]);
      const off = setEnv({ PAYMENTS_ENABLED: "false" });
      try {
        expect(paymentProblem(configurationProblems())).toEqual([]);
        const res = await checkout();
        expect(res.status).toBe(503);
        expect(res.body).toEqual({ error: expect.stringContaining("Payments are switched off"), code: "payments_disabled" });
        expect((await call(guestCheckout, { path: "/api/payments/create-checkout?tier=pro&billing=monthly" })).status).toBe(503);
        expect((await call(completeCheckout, { method: "POST", path: "/api/simulator/checkout", body: { id: "x" } })).status).toBe(404);
        const config = await call(publicConfigRoute, { path: "/api/config/public" });
        expect(config.body.features.paymentsEnabled).toBe(false);
      } finally {
        off();
      }
      const on = setEnv({ PAYMENT_SIMULATOR_ENABLED: "true" });
      try {
        expect((await checkout()).status).toBe(200);
      } finally {
        on();
      }
    } finally {
      restore();
    }
  });
});

describe("subscription management errors", () => {
  it("cancel: 404 without an active subscription (also after expiry), 401 for a deleted user", async () => {
    const { user, cookie } = await signIn();
    const res = await call(cancel, { method: "POST", path: "/api/payments/cancel-subscription", cookie });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatch(/No active subscription/);
    await subscribe(user.id, "local-basic-monthly", "expired");
    expect((await call(cancel, { method: "POST", path: "/api/payments/cancel-subscription", cookie })).status).toBe(404);
    expect((await call(cancel, { method: "POST", path: "/api/payments/cancel-subscription", cookie: await ghost() })).status).toBe(401);
  });

  it("change-plan: 400 invalid or same variant, 404 without subscription", async () => {
    const { user, cookie } = await signIn();
    const change = (body: unknown) => call(changePlan, { path: "/api/payments/change-plan", cookie, body });
    expect((await change({ newVariantId: "local-pro-monthly" })).status).toBe(404);
    await subscribe(user.id);
    expect((await change({})).status).toBe(400);
    expect((await change({ newVariantId: "nope" })).status).toBe(400);
    expect((await change({ newVariantId: "local-bonus-basic-500" })).status).toBe(400);
    const same = await change({ newVariantId: "local-basic-monthly" });
    expect(same.status).toBe(400);
    expect(same.body.error).toMatch(/already on/);
    const ok = await change({ newVariantId: "local-pro-monthly" });
    expect(ok.status).toBe(200);
    expect(ok.body.subscription.status).toBe("active");
  });

  it("portal endpoints: 404 without a subscription; create-portal-session has no rate limit, customer-portal counts as payments", async () => {
    const { user, cookie } = await signIn();
    const a = await call(portalSession, { method: "POST", path: "/api/payments/create-portal-session", cookie });
    expect(a.status).toBe(404);
    const b = await call(customerPortal, { method: "POST", path: "/api/payments/customer-portal", cookie });
    expect(b.status).toBe(404);
    await subscribe(user.id);
    const session = await call(portalSession, { method: "POST", path: "/api/payments/create-portal-session", cookie });
    expect(session.status).toBe(200);
    expect(session.headers.get("x-ratelimit-limit")).toBeNull();
    const portal = await call(customerPortal, { method: "POST", path: "/api/payments/customer-portal", cookie });
    expect(portal.status).toBe(200);
    expect(portal.body.portalUrl).toMatch(/\/simulator\/portal\?token=/);
    expect(portal.headers.get("x-ratelimit-limit")).toBe("20");
  });

  it("subscription: free user details, 401 for a deleted user", async () => {
    const { cookie } = await signIn();
    const res = await call(subscription, { path: "/api/payments/subscription", cookie });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      subscription: null,
      hasActiveSubscription: false,
      tier: "free",
      isFreePlan: true,
      planName: "Free",
      user: { downgradeCount: 0, hasUsedTrial: false },
      limits: { monthlyCredits: 200, bonusMonthlyLimit: 0 },
    });
    // Only limits the service enforces are reported.
    expect(res.body.limits).toEqual({ monthlyCredits: 200, bonusMonthlyLimit: 0, maxUploadBytes: 52428800, batchChatSize: 10 });
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    const gone = await call(subscription, { path: "/api/payments/subscription", cookie: await ghost() });
    expect(gone.status).toBe(401);
    expect(gone.headers.get("cache-control")).toBe("no-store");
  });
});

describe("GET /api/payments/debug", () => {
  it("development: session or ?key=DEBUG_KEY; 401 otherwise; 404 to everyone in production", async () => {
    const restore = setEnv({ APP_ENV: "development", DEBUG_KEY: "debug-key-123" });
    try {
      const { cookie } = await signIn();
      expect((await call(debug, { path: "/api/payments/debug" })).status).toBe(401);
      expect((await call(debug, { path: "/api/payments/debug?key=wrong" })).status).toBe(401);
      const withKey = await call(debug, { path: "/api/payments/debug?key=debug-key-123" });
      expect(withKey.status).toBe(200);
      expect(withKey.body).toMatchObject({
        provider: "simulator",
        settings: { PAYMENT_WEBHOOK_SECRET: true, LEMONSQUEEZY_API_KEY: false },
      });
      expect(withKey.text).not.toContain("test-payment-webhook-secret");
      expect((await call(debug, { path: "/api/payments/debug", cookie })).status).toBe(200);
      const prod = setEnv({ APP_ENV: "production", CRON_SECRET: "c" });
      expect((await call(debug, { path: "/api/payments/debug?key=debug-key-123" })).status).toBe(404);
      expect((await call(debug, { path: "/api/payments/debug", cookie })).status).toBe(404);
      prod();
    } finally {
      restore();
    }
  });
});

describe("bonus credit endpoints", () => {
  it("404 unless credit_based and bonus credits enabled", async () => {
    const { cookie } = await signIn();
    for (const env of [{ PUBLIC_PRICING_MODEL: "classic_saas" }, { PUBLIC_BONUS_CREDITS_ENABLED: "false" }]) {
      const restore = setEnv(env);
      try {
        expect((await call(bonusPackages, { path: "/api/credits/bonus-packages", cookie })).status).toBe(404);
        expect(
          (await call(creditsCheckout, { path: "/api/credits/checkout", cookie, body: { variantId: "local-bonus-basic-500" } })).status,
        ).toBe(404);
        expect((await call(bonusPackages, { path: "/api/credits/bonus-packages" })).status).toBe(404);
      } finally {
        restore();
      }
    }
    expect((await call(bonusPackagesPost, { method: "POST", path: "/api/credits/bonus-packages", cookie })).status).toBe(405);
  });

  it("free tier: no packages, limit 0; checkout 400 for any package", async () => {
    const { cookie } = await signIn();
    const res = await call(bonusPackages, { path: "/api/credits/bonus-packages", cookie });
    expect(res.body).toEqual({
      enabled: true,
      packages: [],
      monthlyLimit: 0,
      monthlyPurchasedCredits: 0,
      canPurchaseMore: false,
      tier: "free",
    });
    expect(res.headers.get("x-ratelimit-limit")).toBe("100");
    const co = await call(creditsCheckout, { path: "/api/credits/checkout", cookie, body: { variantId: "local-bonus-basic-500" } });
    expect(co.status).toBe(400);
    expect(co.body.error).toMatch(/no bonus packages/);
  });

  it("checkout: 400 invalid body or a package of another tier, 403 at the monthly limit", async () => {
    const { user, cookie } = await signIn();
    await subscribe(user.id, "local-basic-monthly");
    const checkout = (body: unknown) => call(creditsCheckout, { path: "/api/credits/checkout", cookie, body });
    expect((await checkout({})).status).toBe(400);
    expect((await checkout({ variantId: "" })).status).toBe(400);
    const other = await checkout({ variantId: "local-bonus-pro-2000" });
    expect(other.status).toBe(400);
    expect(other.body.error).toMatch(/not a bonus package of the Basic tier/);
    const ok = await checkout({ variantId: "local-bonus-basic-500" });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-ratelimit-limit")).toBe("20");
    await grantBonusPurchase({ userId: user.id, orderId: `o-${user.id}`, variantId: "local-bonus-basic-1200", credits: 2000 });
    expect((await checkout({ variantId: "local-bonus-basic-500" })).status).toBe(403);
    const pk = await call(bonusPackages, { path: "/api/credits/bonus-packages", cookie });
    expect(pk.body).toMatchObject({ tier: "basic", monthlyPurchasedCredits: 2000, canPurchaseMore: true });
    expect((await checkout({ variantId: "local-bonus-basic-1200" })).status).toBe(403);
  });
});
