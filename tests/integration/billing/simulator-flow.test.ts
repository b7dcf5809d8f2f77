import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, describe, expect, it } from "vitest";
import { GET as bonusPackages } from "@/app/api/credits/bonus-packages/route";
import { POST as creditsCheckout } from "@/app/api/credits/checkout/route";
import { GET as history } from "@/app/api/credits/history/route";
import { GET as checkTrialsGet, POST as checkTrials } from "@/app/api/cron/check-trials/route";
import { POST as cancel } from "@/app/api/payments/cancel-subscription/route";
import { POST as changePlan } from "@/app/api/payments/change-plan/route";
import { GET as guestCheckout, POST as createCheckout } from "@/app/api/payments/create-checkout/route";
import { POST as portalSession } from "@/app/api/payments/create-portal-session/route";
import { GET as subscription } from "@/app/api/payments/subscription/route";
import { POST as completeCheckout } from "@/app/api/simulator/checkout/route";
import { POST as portalAction } from "@/app/api/simulator/portal/route";
import { GET as status } from "@/app/api/user/status/route";
import CheckoutPage from "@/app/simulator/checkout/[id]/page";
import PortalPage from "@/app/simulator/portal/page";
import { closeDb, db } from "@/lib/db/client";
import { call, signIn } from "@/tests/helpers/http";
import { setEnv } from "@/tests/helpers/env";

afterAll(closeDb);

const checkoutId = (url: string) => {
  const match = /^http:\/\/localhost:3000\/simulator\/checkout\/([^/?]+)$/.exec(url);
  if (!match) throw new Error(`not a simulator checkout URL: ${url}`);
  return match[1];
};

async function renderCheckout(id: string, error?: string) {
  return renderToStaticMarkup(await CheckoutPage({ params: Promise.resolve({ id }), searchParams: Promise.resolve({ error }) }));
}

function form(fields: Record<string, string>) {
  return { rawBody: new URLSearchParams(fields).toString(), headers: { "content-type": "application/x-www-form-urlencoded" } };
}

async function buy(cookie: string, variantId: string) {
  const res = await call(createCheckout, { path: "/api/payments/create-checkout", cookie, body: { variantId } });
  expect(res.status).toBe(200);
  const id = checkoutId(res.body.checkoutUrl);
  const done = await call(completeCheckout, { method: "POST", path: "/api/simulator/checkout", ...form({ id }) });
  expect(done.status).toBe(303);
  return { id, location: done.headers.get("location") };
}

describe("local checkout simulator, end to end through the handlers (credit_based)", () => {
  it("buys a plan: checkout page, Complete purchase, signed webhooks, status, subscription, credits", async () => {
    const { user, cookie } = await signIn("buyer@example.com");
    const res = await call(createCheckout, {
      path: "/api/payments/create-checkout",
      cookie,
      body: { variantId: "local-pro-monthly", discountCode: "WELCOME" },
    });
    expect(res.status).toBe(200);
    const id = checkoutId(res.body.checkoutUrl);

    const html = await renderCheckout(id);
    expect(html).toContain("Pro plan, billed monthly");
    expect(html).toContain("$29.99");
    expect(html).toContain("Complete purchase");
    expect(html).toContain("buyer@example.com");
    expect(html).toContain("WELCOME");
    expect(await renderCheckout(id.slice(0, -2) + "xx")).toContain("Checkout not found");

    const done = await call(completeCheckout, { method: "POST", path: "/api/simulator/checkout", ...form({ id }) });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("http://localhost:3000/dashboard?checkout=success");

    expect((await call(status, { path: "/api/user/status", cookie })).body).toEqual({
      status: "active_subscriber",
      tier: "pro",
      billingPeriod: "monthly",
      isTrial: false,
      needsAction: false,
      isLocked: false,
    });
    const details = await call(subscription, { path: "/api/payments/subscription", cookie });
    expect(details.status).toBe(200);
    expect(details.headers.get("cache-control")).toBe("private, max-age=60");
    expect(details.body).toMatchObject({
      hasActiveSubscription: true,
      tier: "pro",
      billingPeriod: "monthly",
      planName: "Pro",
      isFreePlan: false,
      subscription: { status: "active", variantId: "local-pro-monthly" },
      user: { downgradeCount: 0, hasUsedTrial: false },
      limits: { monthlyCredits: 5000, bonusMonthlyLimit: 10000 },
    });
    expect(Date.parse(details.body.subscription.currentPeriodEnd)).toBeGreaterThan(Date.now() + 27 * 86_400_000);
    const prisma = await db();
    expect((await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } })).subscriptionCredits).toBe(5000);
    const deliveries = await prisma.webhookDelivery.findMany({
      where: { source: "payment", userRef: user.id },
      orderBy: { receivedAt: "asc" },
    });
    expect(deliveries.map((d) => [d.eventType, d.status])).toEqual([
      ["subscription_created", "processed"],
      ["subscription_payment_success", "processed"],
    ]);

    // Completing the same checkout again creates nothing new.
    await call(completeCheckout, { method: "POST", path: "/api/simulator/checkout", body: { id } });
    expect(await prisma.subscription.count({ where: { userId: user.id } })).toBe(1);
  });

  it("buys a bonus package within the monthly limit, once per order, and lands on /dashboard/credits?purchase=success", async () => {
    const { user, cookie } = await signIn("bonusbuyer@example.com");
    await buy(cookie, "local-basic-monthly");
    const packages = await call(bonusPackages, { path: "/api/credits/bonus-packages", cookie });
    expect(packages.body).toEqual({
      enabled: true,
      packages: [
        { credits: 500, price: 4.99, variantId: "local-bonus-basic-500" },
        { credits: 1200, price: 9.99, variantId: "local-bonus-basic-1200" },
      ],
      monthlyLimit: 2400,
      monthlyPurchasedCredits: 0,
      canPurchaseMore: true,
      tier: "basic",
    });
    const co = await call(creditsCheckout, { path: "/api/credits/checkout", cookie, body: { variantId: "local-bonus-basic-1200" } });
    expect(co.status).toBe(200);
    const id = checkoutId(co.body.checkoutUrl);
    expect(await renderCheckout(id)).toContain("1,200 bonus credits");
    const done = await call(completeCheckout, { method: "POST", path: "/api/simulator/checkout", body: { id } });
    expect(done.body).toEqual({ redirectUrl: "http://localhost:3000/dashboard/credits?purchase=success" });
    await call(completeCheckout, { method: "POST", path: "/api/simulator/checkout", body: { id } });

    const after = await call(bonusPackages, { path: "/api/credits/bonus-packages", cookie });
    expect(after.body).toMatchObject({ monthlyPurchasedCredits: 1200, canPurchaseMore: true });
    const prisma = await db();
    expect(await prisma.bonusPurchase.count({ where: { userId: user.id } })).toBe(1);
    const h = await call(history, { path: "/api/credits/history", cookie });
    expect(h.status).toBe(200);
    expect(h.body.transactions[0]).toMatchObject({ type: "purchase", amount: 1200 });

    // 1200 + 1200 = 2400 is still within the limit; a third package is not.
    const second = await call(creditsCheckout, { path: "/api/credits/checkout", cookie, body: { variantId: "local-bonus-basic-1200" } });
    await call(completeCheckout, { method: "POST", path: "/api/simulator/checkout", body: { id: checkoutId(second.body.checkoutUrl) } });
    const refused = await call(creditsCheckout, { path: "/api/credits/checkout", cookie, body: { variantId: "local-bonus-basic-500" } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/Monthly bonus purchase limit reached/);
    expect((await call(bonusPackages, { path: "/api/credits/bonus-packages", cookie })).body).toMatchObject({
      monthlyPurchasedCredits: 2400,
      canPurchaseMore: false,
    });
  });

  it("portal: failed and recovered payment drive needsAction; cancel shows endsAt; resume reactivates", async () => {
    const { cookie } = await signIn("portal@example.com");
    await buy(cookie, "local-basic-yearly");
    const session = await call(portalSession, { path: "/api/payments/create-portal-session", cookie, method: "POST" });
    expect(session.status).toBe(200);
    expect(session.headers.get("x-ratelimit-limit")).toBeNull();
    const token = new URL(session.body.url).searchParams.get("token") as string;
    expect(new URL(session.body.url).pathname).toBe("/simulator/portal");
    const page = renderToStaticMarkup(await PortalPage({ searchParams: Promise.resolve({ token }) }));
    expect(page).toContain("Cancel subscription");
    expect(page).toContain("portal@example.com");
    expect(renderToStaticMarkup(await PortalPage({ searchParams: Promise.resolve({ token: token + "x" }) }))).toContain(
      "Portal session not found",
    );

    const act = (action: string, extra: Record<string, string> = {}) =>
      call(portalAction, { method: "POST", path: "/api/simulator/portal", ...form({ token, action, ...extra }) });
    expect((await act("fail_payment")).status).toBe(303);
    expect((await call(status, { path: "/api/user/status", cookie })).body).toMatchObject({ status: "past_due", needsAction: true });
    const prisma = await db();
    expect(await prisma.emailLog.count({ where: { to: "portal@example.com", type: "payment_failed" } })).toBe(1);
    await act("recover_payment");
    expect((await call(status, { path: "/api/user/status", cookie })).body).toMatchObject({
      status: "active_subscriber",
      needsAction: false,
    });

    const before = await call(subscription, { path: "/api/payments/subscription", cookie });
    const cancelled = await call(cancel, { path: "/api/payments/cancel-subscription", cookie, method: "POST" });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.endsAt).toBe(before.body.subscription.currentPeriodEnd);
    expect(cancelled.body.message).toMatch(/active until the end/);
    expect((await call(status, { path: "/api/user/status", cookie })).body).toMatchObject({ status: "cancelled", tier: "basic" });
    const again = await call(cancel, { path: "/api/payments/cancel-subscription", cookie, method: "POST" });
    expect(again.body.endsAt).toBe(cancelled.body.endsAt);
    expect(renderToStaticMarkup(await PortalPage({ searchParams: Promise.resolve({ token }) }))).toContain("Resume subscription");
    const resumed = await act("resume");
    expect(resumed.headers.get("location")).toContain("message=");
    expect((await call(subscription, { path: "/api/payments/subscription", cookie })).body.subscription).toMatchObject({
      status: "active",
      endsAt: null,
    });
    const bad = await call(portalAction, { method: "POST", path: "/api/simulator/portal", body: { token, action: "explode" } });
    expect(bad.status).toBe(400);
    const forged = await call(portalAction, {
      method: "POST",
      path: "/api/simulator/portal",
      body: { token: token + "x", action: "cancel" },
    });
    expect(forged.status).toBe(404);
  });

  it("registration-first: GET create-checkout answers exactly 302; the purchase attaches to the account registering with that email", async () => {
    const res = await call(guestCheckout, { path: "/api/payments/create-checkout?tier=pro&billing=yearly" });
    expect(res.status).toBe(302);
    const id = checkoutId(res.headers.get("location") as string);
    const html = await renderCheckout(id);
    expect(html).toContain('name="email"');
    const missing = await call(completeCheckout, { method: "POST", path: "/api/simulator/checkout", ...form({ id }) });
    expect(missing.status).toBe(303);
    expect(missing.headers.get("location")).toContain("error=");
    const done = await call(completeCheckout, {
      method: "POST",
      path: "/api/simulator/checkout",
      ...form({ id, email: "Newcomer@Example.com" }),
    });
    expect(done.headers.get("location")).toBe("http://localhost:3000/signin?callbackUrl=%2Fdashboard%3Fcheckout%3Dsuccess");
    const { cookie } = await signIn("newcomer@example.com");
    expect((await call(status, { path: "/api/user/status", cookie })).body).toMatchObject({
      status: "active_subscriber",
      tier: "pro",
      billingPeriod: "yearly",
    });
  });
});

describe("trials (classic_saas)", () => {
  it("a plan starts on trial; at most 2 downgrades during the trial, the third is 400 until the trial ends", async () => {
    const restore = setEnv({ PUBLIC_PRICING_MODEL: "classic_saas" });
    try {
      const { user, cookie } = await signIn("trial-user@example.com");
      const { id } = await buy(cookie, "local-enterprise-monthly");
      expect(id).toBeTruthy();
      expect((await call(status, { path: "/api/user/status", cookie })).body).toMatchObject({
        status: "trialing",
        isTrial: true,
        tier: "enterprise",
      });
      const change = (newVariantId: string) => call(changePlan, { path: "/api/payments/change-plan", cookie, body: { newVariantId } });
      const first = await change("local-pro-monthly");
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ success: true, newVariantId: "local-pro-monthly", subscription: { status: "on_trial" } });
      expect(first.body.message).toMatch(/downgraded/);
      expect((await change("local-basic-monthly")).status).toBe(200);
      const up = await change("local-pro-yearly");
      expect(up.status).toBe(200);
      expect(up.body.message).toMatch(/upgraded/);
      const third = await change("local-basic-yearly");
      expect(third.status).toBe(400);
      expect(third.body.error).toMatch(/Downgrade limit reached/);
      const details = await call(subscription, { path: "/api/payments/subscription", cookie });
      expect(details.body).toMatchObject({
        tier: "pro",
        user: { downgradeCount: 2, hasUsedTrial: true },
        subscription: { variantId: "local-pro-yearly" },
      });

      // The trial ends (the provider converts it): downgrades are possible again.
      const prisma = await db();
      await prisma.subscription.updateMany({
        where: { userId: user.id },
        data: { status: "active", trialEndsAt: new Date(Date.now() - 1000) },
      });
      const after = await change("local-basic-yearly");
      expect(after.status).toBe(200);
      expect((await call(subscription, { path: "/api/payments/subscription", cookie })).body.user.downgradeCount).toBe(3);
    } finally {
      restore();
    }
  });

  it("check-trials expires trials past their end in classic_saas, downgrading to free; a no-op in credit_based", async () => {
    const restore = setEnv({ PUBLIC_PRICING_MODEL: "classic_saas" });
    try {
      const { user, cookie } = await signIn("expiring@example.com");
      await buy(cookie, "local-basic-monthly");
      const { cookie: otherCookie } = await signIn("still-trial@example.com");
      await buy(otherCookie, "local-basic-monthly");
      const prisma = await db();
      await prisma.subscription.updateMany({ where: { userId: user.id }, data: { trialEndsAt: new Date(Date.now() - 60_000) } });

      expect((await call(checkTrialsGet, { path: "/api/cron/check-trials" })).body).toEqual({
        status: "active",
        schedule: "0 2 * * *",
        model: "classic_saas",
      });
      const res = await call(checkTrials, { method: "POST", path: "/api/cron/check-trials" });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, expiredCount: 1 });
      expect(Date.parse(res.body.timestamp)).not.toBeNaN();
      expect((await call(status, { path: "/api/user/status", cookie })).body).toMatchObject({
        status: "free",
        tier: "free",
        isTrial: false,
      });
      expect((await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } })).subscriptionCredits).toBe(200);
      expect((await call(status, { path: "/api/user/status", cookie: otherCookie })).body).toMatchObject({ status: "trialing" });
      expect((await call(checkTrials, { method: "POST", path: "/api/cron/check-trials" })).body.expiredCount).toBe(0);

      const cron = setEnv({ CRON_SECRET: "cron-secret" });
      expect((await call(checkTrials, { method: "POST", path: "/api/cron/check-trials" })).status).toBe(401);
      const viaGet = await call(checkTrialsGet, { path: "/api/cron/check-trials", headers: { authorization: "Bearer cron-secret" } });
      expect(viaGet.body).toMatchObject({ success: true, expiredCount: 0 });
      cron();
    } finally {
      restore();
    }
    const noop = await call(checkTrials, { method: "POST", path: "/api/cron/check-trials" });
    expect(noop.body).toMatchObject({ success: true, expiredCount: 0 });
    expect(noop.body.message).toMatch(/only in classic_saas/);
    expect((await call(checkTrialsGet, { path: "/api/cron/check-trials" })).body).toEqual({
      status: "inactive",
      schedule: "0 2 * * *",
      model: "credit_based",
    });
  });
});
