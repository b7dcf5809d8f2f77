import { afterAll, describe, expect, it, vi } from "vitest";
import { GET, POST } from "@/app/api/user/status/route";
import { currentSubscription } from "@/lib/billing/subscriptions/current-subscription";
import { closeDb, db } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, sessionCookie, signIn } from "@/tests/helpers/http";

afterAll(closeDb);

/** The status of an account on the free tier, with nothing to do. */
const FREE_STATUS = { status: "free", tier: "free", billingPeriod: "monthly", isTrial: false, needsAction: false, isLocked: false };

describe("GET /api/user/status", () => {
  it("answers 401 without a session", async () => {
    const res = await call(GET, { path: "/api/user/status" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Authentication required", code: "unauthorized" });
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("answers 401 for a forged session cookie", async () => {
    const res = await call(GET, { path: "/api/user/status", cookie: "next-auth.session-token=not-a-jwt" });
    expect(res.status).toBe(401);
  });

  it("reports a new user as free, cached privately for 300 s, with rate-limit headers", async () => {
    const { cookie } = await signIn("status@example.com");
    const res = await call(GET, { path: "/api/user/status", cookie });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(FREE_STATUS);
    expect(res.headers.get("cache-control")).toBe("private, max-age=300");
    expect(res.headers.get("x-ratelimit-limit")).toBe("100");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("99");
    expect(Number(res.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("reports trial, needsAction and isLocked from the subscription and user", async () => {
    const { user, cookie } = await signIn("trial@example.com");
    const prisma = await db();
    await prisma.subscription.create({
      data: {
        userId: user.id,
        providerSubscriptionId: "sub-trial",
        status: "on_trial",
        tier: "pro",
        billingPeriod: "yearly",
        variantId: "local-pro-yearly",
        paymentFailedAt: new Date(),
      },
    });
    await prisma.user.update({ where: { id: user.id }, data: { lockedAt: new Date(), lockReason: "test" } });
    const res = await call(GET, { path: "/api/user/status", cookie });
    expect(res.body).toEqual({
      status: "trialing",
      tier: "pro",
      billingPeriod: "yearly",
      isTrial: true,
      needsAction: true,
      isLocked: true,
    });
  });

  it("reads the current subscription by its one rule: the newest live one not ended, as the billing paths do", async () => {
    const { user, cookie } = await signIn("status-rule@example.com");
    const prisma = await db();
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000);
    const subscription = (id: string, status: string, createdAt: Date, extra: Record<string, unknown> = {}) =>
      prisma.subscription.create({
        data: {
          userId: user.id,
          providerSubscriptionId: id,
          status,
          tier: "pro",
          billingPeriod: "yearly",
          variantId: "v",
          createdAt,
          ...extra,
        },
      });
    const status = async () => (await call(GET, { path: "/api/user/status", cookie })).body as { status: string; tier: string };
    // An older active plan, then a newer one that expired (not live): the active one is current.
    await subscription("sub-rule-active", "active", at(60));
    await subscription("sub-rule-expired", "expired", at(30));
    expect(await status()).toMatchObject({ status: "active_subscriber", tier: "pro" });
    expect((await currentSubscription(user.id))?.providerSubscriptionId).toBe("sub-rule-active");
    // A newer cancellation that still runs until its end: current, as "cancelled".
    await subscription("sub-rule-cancelled", "cancelled", at(20), { endsAt: at(-60), tier: "team" });
    expect(await status()).toMatchObject({ status: "cancelled", tier: "team" });
    expect((await currentSubscription(user.id))?.providerSubscriptionId).toBe("sub-rule-cancelled");
    // Once it has ended it no longer counts: the older active one is current again.
    await prisma.subscription.updateMany({ where: { providerSubscriptionId: "sub-rule-cancelled" }, data: { endsAt: at(1) } });
    expect(await status()).toMatchObject({ status: "active_subscriber", tier: "pro" });
    expect((await currentSubscription(user.id))?.providerSubscriptionId).toBe("sub-rule-active");
    // A past-due renewal needs action; with nothing live left the user is free on their own period.
    await prisma.subscription.updateMany({ where: { providerSubscriptionId: "sub-rule-active" }, data: { status: "past_due" } });
    expect(await status()).toMatchObject({ status: "past_due", needsAction: true });
    await prisma.subscription.updateMany({ where: { providerSubscriptionId: "sub-rule-active" }, data: { status: "expired" } });
    expect(await status()).toEqual(FREE_STATUS);
    expect(await currentSubscription(user.id)).toBeNull();
  });

  it("answers 401 when the session's user no longer exists", async () => {
    const cookie = await sessionCookie({ id: "00000000-0000-0000-0000-000000000000", email: "gone@example.com" });
    const res = await call(GET, { path: "/api/user/status", cookie });
    expect(res.status).toBe(401);
  });

  it("answers 429 over the api limit of 100 per user per hour", async () => {
    const { cookie } = await signIn("limited@example.com");
    for (let i = 0; i < 100; i++) expect((await call(GET, { path: "/api/user/status", cookie })).status).toBe(200);
    const res = await call(GET, { path: "/api/user/status", cookie });
    expect(res.status).toBe(429);
    expect(res.body.error).toMatch(/Rate limit exceeded/);
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(res.headers.get("retry-after")).toBeTruthy();
  });

  it("answers 503 unavailable with Retry-After, without internals, when the database is out of reach (rate limiting fails open)", async () => {
    const { cookie } = await signIn("dbdown@example.com");
    await closeDb();
    const restore = setEnv({ DATABASE_URL: "postgresql://nobody@127.0.0.1:9/none?connect_timeout=2" });
    const logged: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((line: unknown) => void logged.push(String(line)));
    try {
      const res = await call(GET, { path: "/api/user/status", cookie });
      // An outage, not a failure of ours: no stack per request (the breaker logs its few lines).
      expect(logged.some((l) => l.includes("unhandled error"))).toBe(false);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: "The database is unavailable; retry shortly", code: "unavailable" });
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(res.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|nobody/);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    } finally {
      spy.mockRestore();
      await closeDb();
      restore();
    }
  });

  it("answers 405 with an Allow header for other methods", async () => {
    const res = await call(POST, { method: "POST", path: "/api/user/status" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET");
    expect(res.body.error).toMatch(/not allowed/);
  });
});
