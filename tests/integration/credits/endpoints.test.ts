import { afterAll, afterEach, describe, expect, it } from "vitest";
import * as usageRoute from "@/app/api/ai/usage/route";
import * as historyRoute from "@/app/api/credits/history/route";
import * as prefsRoute from "@/app/api/credits/preferences/route";
import { grantBonusPurchase, refundReservation, reserveCredits } from "@/lib/credits";
import { closeDb, db } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, sessionCookie, signIn } from "@/tests/helpers/http";
import { expectLedgerBalances } from "./invariant";

afterAll(closeDb);
let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

const ghostCookie = () => sessionCookie({ id: "00000000-0000-0000-0000-00000000dead", email: "ghost@example.com" });

describe("GET /api/ai/usage", () => {
  it("answers 401 without a session", async () => {
    const res = await call(usageRoute.GET, { path: "/api/ai/usage" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Authentication required", code: "unauthorized" });
  });

  it("reports a new free user's allocation", async () => {
    const { cookie } = await signIn();
    const res = await call(usageRoute.GET, { path: "/api/ai/usage", cookie });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ unlimited: false, tier: "free", monthlyLimit: 200, remaining: 200, bonusCredits: 0, used: 0 });
    expect(new Date(res.body.resetAt).toISOString()).toBe(res.body.resetAt);
    // resetAt is the last reset (SPEC); nextResetAt the next: the free tier renews on the 1st, UTC.
    const now = new Date();
    expect(res.body.nextResetAt).toBe(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString());
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
  });

  it("rolls a free user over when their month has turned, then reports the new allocation", async () => {
    const { user, cookie } = await signIn();
    await reserveCredits({ userId: user.id, amount: 150, operation: "chat" });
    const prisma = await db();
    const lastMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 1, 15));
    await prisma.creditBalance.update({ where: { userId: user.id }, data: { resetAt: lastMonth } });
    await prisma.creditOperation.updateMany({
      where: { userId: user.id, kind: "reset" },
      data: { idempotencyKey: `reset:${user.id}:old` },
    });
    const res = await call(usageRoute.GET, { path: "/api/ai/usage", cookie });
    expect(res.body).toMatchObject({ tier: "free", monthlyLimit: 200, remaining: 200, used: 0 });
    expect(new Date(res.body.resetAt).getTime()).toBeGreaterThan(lastMonth.getTime());
    expect(await prisma.creditTransaction.count({ where: { userId: user.id, operation: "monthly_rollover" } })).toBe(1);
    // Asked again: nothing more is due.
    expect((await call(usageRoute.GET, { path: "/api/ai/usage", cookie })).body).toMatchObject({ remaining: 200 });
    expect(await prisma.creditTransaction.count({ where: { userId: user.id, operation: "monthly_rollover" } })).toBe(1);
    await expectLedgerBalances(user.id);
  });

  it("reports a paid plan's next allocation at its subscription's renewal, not the 1st", async () => {
    const { user, cookie } = await signIn();
    const prisma = await db();
    const renewsAt = new Date(Date.now() + 27 * 86_400_000);
    await prisma.user.update({ where: { id: user.id }, data: { tier: "pro" } });
    await prisma.subscription.create({
      data: {
        userId: user.id,
        providerSubscriptionId: `sub-${user.id}`,
        status: "active",
        tier: "pro",
        variantId: "local-pro-monthly",
        currentPeriodEnd: renewsAt,
      },
    });
    const res = await call(usageRoute.GET, { path: "/api/ai/usage", cookie });
    expect(res.body.nextResetAt).toBe(renewsAt.toISOString());
  });

  it("reports used credits and bonus credits separately", async () => {
    const { user, cookie } = await signIn();
    await reserveCredits({ userId: user.id, amount: 80, operation: "image_generation" });
    await grantBonusPurchase({ userId: user.id, orderId: `o-${user.id}`, variantId: "v", credits: 500 });
    const res = await call(usageRoute.GET, { path: "/api/ai/usage", cookie });
    expect(res.body).toMatchObject({ unlimited: false, tier: "free", monthlyLimit: 200, remaining: 120, bonusCredits: 500, used: 80 });
  });

  it("answers the exact unlimited values in classic_saas mode", async () => {
    restore = setEnv({ PUBLIC_PRICING_MODEL: "classic_saas" });
    const { cookie } = await signIn();
    const res = await call(usageRoute.GET, { path: "/api/ai/usage", cookie });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ unlimited: true, tier: "unlimited", monthlyLimit: 999999, remaining: 999999, bonusCredits: 0, used: 0 });
  });

  it("answers 401 when the session's user does not exist (both modes): a deleted user's session is no session", async () => {
    const cookie = await ghostCookie();
    const res = await call(usageRoute.GET, { path: "/api/ai/usage", cookie });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Authentication required", code: "unauthorized" });
    restore = setEnv({ PUBLIC_PRICING_MODEL: "classic_saas" });
    const classic = await call(usageRoute.GET, { path: "/api/ai/usage", cookie });
    expect(classic.status).toBe(401);
    expect(classic.body).toEqual({ error: "Authentication required", code: "unauthorized" });
  });

  it("answers 405 for POST", async () => {
    expect((await call(usageRoute.POST, { method: "POST", path: "/api/ai/usage" })).status).toBe(405);
  });
});

describe("GET /api/credits/history", () => {
  it("answers 401 without a session", async () => {
    expect((await call(historyRoute.GET, { path: "/api/credits/history" })).status).toBe(401);
  });

  it("lists the year's transactions newest first with totalCount, availableYears and a private 60 s cache", async () => {
    const { user, cookie } = await signIn();
    const r = await reserveCredits({ userId: user.id, amount: 15, operation: "chat", metadata: { model: "m-1" } });
    await refundReservation(r, { reason: "provider_failed" });
    await reserveCredits({ userId: user.id, amount: 20, operation: "stream" });
    const prisma = await db();
    await prisma.creditTransaction.create({
      data: {
        userId: user.id,
        amount: 0,
        balanceAfter: 0,
        type: "adjustment",
        operation: "old",
        createdAt: new Date(Date.UTC(2021, 5, 1)),
      },
    });
    const res = await call(historyRoute.GET, { path: "/api/credits/history", cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, max-age=60");
    expect(res.headers.get("x-ratelimit-limit")).toBe("100");
    const year = new Date().getUTCFullYear();
    expect(res.body.totalCount).toBe(4);
    expect(res.body.availableYears).toEqual([2021, year]);
    expect(res.body.transactions.map((t: { type: string; amount: number }) => [t.type, t.amount])).toEqual([
      ["usage", -20],
      ["refund", 15],
      ["usage", -15],
      ["monthly_reset", 200],
    ]);
    const usage = res.body.transactions[2];
    expect(usage).toEqual({
      id: expect.any(String),
      amount: -15,
      balanceAfter: 185,
      type: "usage",
      operation: "chat",
      metadata: { model: "m-1" },
      createdAt: expect.any(String),
    });
    expect(res.body.transactions[0].balanceAfter).toBe(180);

    const page = await call(historyRoute.GET, { path: "/api/credits/history?limit=2&offset=1", cookie });
    expect(page.body.transactions.map((t: { type: string }) => t.type)).toEqual(["refund", "usage"]);
    expect(page.body.totalCount).toBe(4);

    const old = await call(historyRoute.GET, { path: "/api/credits/history?year=2021", cookie });
    expect(old.body.totalCount).toBe(1);
    expect(old.body.transactions[0]).toMatchObject({ operation: "old", metadata: {} });
    const empty = await call(historyRoute.GET, { path: `/api/credits/history?year=${year + 1}`, cookie });
    expect(empty.body).toEqual({ transactions: [], totalCount: 0, availableYears: [2021, year] });
    await expectLedgerBalances(user.id);
  });

  it("shows only the caller's own transactions", async () => {
    const a = await signIn();
    const b = await signIn();
    await reserveCredits({ userId: a.user.id, amount: 15, operation: "chat" });
    const res = await call(historyRoute.GET, { path: "/api/credits/history", cookie: b.cookie });
    expect(res.body.totalCount).toBe(1);
    expect(res.body.transactions[0].type).toBe("monthly_reset");
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=101", "limit"],
    ["limit=abc", "limit"],
    ["limit=1.5", "limit"],
    ["limit=", "limit"],
    ["offset=-1", "offset"],
    ["offset=x", "offset"],
    ["year=1999", "year"],
    [`year=${new Date().getUTCFullYear() + 2}`, "year"],
    ["year=20x1", "year"],
  ])("answers 400 naming the parameter for %s", async (qs, name) => {
    const { cookie } = await signIn();
    const res = await call(historyRoute.GET, { path: `/api/credits/history?${qs}`, cookie });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(`${name}:`);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("accepts the bounds", async () => {
    const { cookie } = await signIn();
    for (const qs of ["limit=1", "limit=100", "offset=0", "year=2000", `year=${new Date().getUTCFullYear() + 1}`]) {
      expect((await call(historyRoute.GET, { path: `/api/credits/history?${qs}`, cookie })).status).toBe(200);
    }
  });

  it("answers 429 over the api limit", async () => {
    const { cookie } = await signIn();
    for (let i = 0; i < 100; i++) await call(historyRoute.GET, { path: "/api/credits/history?limit=1", cookie });
    const res = await call(historyRoute.GET, { path: "/api/credits/history", cookie });
    expect(res.status).toBe(429);
    expect(res.body.error).toMatch(/Rate limit exceeded/);
  });
});

describe("/api/credits/preferences", () => {
  it("answers 401 when the session's user does not exist", async () => {
    const cookie = await ghostCookie();
    expect((await call(prefsRoute.GET, { path: "/api/credits/preferences", cookie })).status).toBe(401);
    const res = await call(prefsRoute.PATCH, {
      method: "PATCH",
      path: "/api/credits/preferences",
      cookie,
      body: { bonusCreditsAutoUse: true },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Authentication required", code: "unauthorized" });
  });

  it("GET answers the preference and the system-wide toggle", async () => {
    const { cookie } = await signIn();
    const res = await call(prefsRoute.GET, { path: "/api/credits/preferences", cookie });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ bonusCreditsAutoUse: false, userToggleEnabled: true });
    restore = setEnv({ CREDITS_USER_TOGGLE_ENABLED: "false" });
    const off = await call(prefsRoute.GET, { path: "/api/credits/preferences", cookie });
    expect(off.body).toEqual({ bonusCreditsAutoUse: false, userToggleEnabled: false });
  });

  it("PATCH sets auto-use, which the charge then honours", async () => {
    const { user, cookie } = await signIn();
    await grantBonusPurchase({ userId: user.id, orderId: `o-${user.id}`, variantId: "v", credits: 100 });
    await reserveCredits({ userId: user.id, amount: 200, operation: "chat" });
    await expect(reserveCredits({ userId: user.id, amount: 15, operation: "chat" })).rejects.toMatchObject({
      code: "insufficient_credits",
    });
    const res = await call(prefsRoute.PATCH, {
      method: "PATCH",
      path: "/api/credits/preferences",
      cookie,
      body: { bonusCreditsAutoUse: true },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, bonusCreditsAutoUse: true });
    expect((await call(prefsRoute.GET, { path: "/api/credits/preferences", cookie })).body.bonusCreditsAutoUse).toBe(true);
    expect((await reserveCredits({ userId: user.id, amount: 15, operation: "chat" })).remaining).toBe(85);
    await expectLedgerBalances(user.id);
  });

  it("PATCH answers 403 when the per-user toggle feature is disabled, changing nothing", async () => {
    restore = setEnv({ CREDITS_USER_TOGGLE_ENABLED: "false" });
    const { user, cookie } = await signIn();
    const res = await call(prefsRoute.PATCH, {
      method: "PATCH",
      path: "/api/credits/preferences",
      cookie,
      body: { bonusCreditsAutoUse: true },
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatch(/toggle is disabled/);
    expect((await (await db()).user.findUniqueOrThrow({ where: { id: user.id } })).bonusCreditsAutoUse).toBe(false);
  });

  it.each([
    [undefined, "body"],
    [{}, "bonusCreditsAutoUse"],
    [{ bonusCreditsAutoUse: "yes" }, "bonusCreditsAutoUse"],
    [{ bonusCreditsAutoUse: true, extra: 1 }, "extra"],
  ])("PATCH answers 400 for body %j", async (body, field) => {
    const { cookie } = await signIn();
    const res = await call(prefsRoute.PATCH, {
      method: "PATCH",
      path: "/api/credits/preferences",
      cookie,
      ...(body === undefined ? {} : { body }),
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(field);
  });

  it("PATCH answers 400 for malformed JSON", async () => {
    const { cookie } = await signIn();
    const res = await call(prefsRoute.PATCH, {
      method: "PATCH",
      path: "/api/credits/preferences",
      cookie,
      rawBody: "{nope",
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
  });

  it("answers 404 in classic_saas mode (GET and PATCH)", async () => {
    const { cookie } = await signIn();
    restore = setEnv({ PUBLIC_PRICING_MODEL: "classic_saas" });
    expect((await call(prefsRoute.GET, { path: "/api/credits/preferences", cookie })).status).toBe(404);
    const res = await call(prefsRoute.PATCH, {
      method: "PATCH",
      path: "/api/credits/preferences",
      cookie,
      body: { bonusCreditsAutoUse: true },
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "Not found", code: "feature_disabled" });
  });

  it("answers 401 without a session and 405 for POST", async () => {
    expect((await call(prefsRoute.GET, { path: "/api/credits/preferences" })).status).toBe(401);
    expect(
      (await call(prefsRoute.PATCH, { method: "PATCH", path: "/api/credits/preferences", body: { bonusCreditsAutoUse: true } })).status,
    ).toBe(401);
    const res = await call(prefsRoute.POST, { method: "POST", path: "/api/credits/preferences" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, PATCH");
  });

  it("answers 429 over the api limit", async () => {
    const { cookie } = await signIn();
    for (let i = 0; i < 100; i++) await call(prefsRoute.GET, { path: "/api/credits/preferences", cookie });
    expect((await call(prefsRoute.GET, { path: "/api/credits/preferences", cookie })).status).toBe(429);
  });
});
