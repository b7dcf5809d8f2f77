import { afterAll, afterEach, describe, expect, it } from "vitest";
import { GET, POST, PUT } from "@/app/api/cron/expire-bonus-credits/route";
import { grantBonusPurchase } from "@/lib/credits";
import { closeDb, db } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { expectLedgerBalances } from "./invariant";

afterAll(closeDb);
let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

const PATH = "/api/cron/expire-bonus-credits";
const SECRET = "test-cron-secret-abcdef";
const bearer = { authorization: `Bearer ${SECRET}` };

async function expiredPurchase() {
  const { user } = await signIn();
  const { purchaseId } = await grantBonusPurchase({
    userId: user.id,
    orderId: `ord-${user.id}`,
    variantId: "v",
    credits: 70,
    expiresAt: new Date(Date.now() - 60_000),
  });
  return { userId: user.id, purchaseId };
}

describe("GET /api/cron/expire-bonus-credits (status)", () => {
  it("answers the configuration without authentication", async () => {
    restore = setEnv({ CRON_SECRET: SECRET });
    const res = await call(GET, { path: PATH });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "active", schedule: "0 3 * * *", model: "credit_based" });
  });

  it("reports inactive in classic_saas mode", async () => {
    restore = setEnv({ PUBLIC_PRICING_MODEL: "classic_saas" });
    const res = await call(GET, { path: PATH });
    expect(res.body).toEqual({ status: "inactive", schedule: "0 3 * * *", model: "classic_saas" });
  });

  it("with a wrong bearer only reports the status (runs nothing)", async () => {
    restore = setEnv({ CRON_SECRET: SECRET });
    const { purchaseId } = await expiredPurchase();
    const res = await call(GET, { path: PATH, headers: { authorization: "Bearer wrong" } });
    expect(res.body.status).toBe("active");
    expect((await (await db()).bonusPurchase.findUniqueOrThrow({ where: { id: purchaseId } })).remaining).toBe(70);
  });

  it("with the cron bearer runs the job (Vercel Cron calls GET)", async () => {
    restore = setEnv({ CRON_SECRET: SECRET });
    const { userId, purchaseId } = await expiredPurchase();
    const res = await call(GET, { path: PATH, headers: bearer });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.expiredCount).toBeGreaterThanOrEqual(1);
    expect((await (await db()).bonusPurchase.findUniqueOrThrow({ where: { id: purchaseId } })).remaining).toBe(0);
    await expectLedgerBalances(userId);
  });
});

describe("POST /api/cron/expire-bonus-credits", () => {
  it("answers 401 without the bearer when CRON_SECRET is set", async () => {
    restore = setEnv({ CRON_SECRET: SECRET });
    const { purchaseId } = await expiredPurchase();
    for (const headers of [{}, { authorization: "Bearer nope" }, { authorization: SECRET }] as Record<string, string>[]) {
      const res = await call(POST, { method: "POST", path: PATH, headers });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: "Invalid or missing cron bearer token", code: "unauthorized" });
    }
    expect((await (await db()).bonusPurchase.findUniqueOrThrow({ where: { id: purchaseId } })).remaining).toBe(70);
  });

  it("answers 401 in production without CRON_SECRET's bearer", async () => {
    restore = setEnv({ APP_ENV: "production", CRON_SECRET: SECRET });
    const res = await call(POST, { method: "POST", path: PATH });
    expect(res.status).toBe(401);
  });

  it("expires purchases past their expiry with adjustment rows and reports the count", async () => {
    restore = setEnv({ CRON_SECRET: SECRET });
    const a = await expiredPurchase();
    const res = await call(POST, { method: "POST", path: PATH, headers: bearer });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, expiredCount: expect.any(Number) });
    expect(res.body.message).toMatch(/^Expired \d+ bonus credit purchase/);
    expect(new Date(res.body.timestamp).toISOString()).toBe(res.body.timestamp);
    const adj = await (await db()).creditTransaction.findFirstOrThrow({ where: { bonusPurchaseId: a.purchaseId, type: "adjustment" } });
    expect(adj).toMatchObject({ amount: -70, balanceAfter: 200, operation: "bonus_expiry" });
    await expectLedgerBalances(a.userId);
    const again = await call(POST, { method: "POST", path: PATH, headers: bearer });
    expect(again.body.expiredCount).toBe(0);
  });

  it("is open outside production when CRON_SECRET is unset", async () => {
    restore = setEnv({ CRON_SECRET: undefined });
    const res = await call(POST, { method: "POST", path: PATH });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
  });

  it("is a no-op in classic_saas mode", async () => {
    restore = setEnv({ CRON_SECRET: SECRET, PUBLIC_PRICING_MODEL: "classic_saas" });
    const { purchaseId } = await expiredPurchase();
    const res = await call(POST, { method: "POST", path: PATH, headers: bearer });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, expiredCount: 0 });
    expect((await (await db()).bonusPurchase.findUniqueOrThrow({ where: { id: purchaseId } })).remaining).toBe(70);
  });

  it("never runs twice at once: a run while the lock is held is skipped", async () => {
    restore = setEnv({ CRON_SECRET: SECRET });
    const { purchaseId } = await expiredPurchase();
    const prisma = await db();
    await prisma.cronLock.upsert({
      where: { job: "expire-bonus-credits" },
      create: { job: "expire-bonus-credits", holder: "other", lockedUntil: new Date(Date.now() + 60_000) },
      update: { holder: "other", lockedUntil: new Date(Date.now() + 60_000) },
    });
    const res = await call(POST, { method: "POST", path: PATH, headers: bearer });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: false, expiredCount: 0, message: "expire-bonus-credits is already running" });
    expect((await prisma.bonusPurchase.findUniqueOrThrow({ where: { id: purchaseId } })).remaining).toBe(70);
    await prisma.cronLock.update({ where: { job: "expire-bonus-credits" }, data: { holder: null, lockedUntil: null } });
    // Two concurrent runs: every purchase expires exactly once.
    const [x, y] = await Promise.all([
      call(POST, { method: "POST", path: PATH, headers: bearer }),
      call(POST, { method: "POST", path: PATH, headers: bearer }),
    ]);
    expect([x.status, y.status]).toEqual([200, 200]);
    expect(await prisma.creditTransaction.count({ where: { bonusPurchaseId: purchaseId, type: "adjustment" } })).toBe(1);
  });

  it("answers 405 for other methods", async () => {
    const res = await call(PUT, { method: "PUT", path: PATH });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, POST");
  });
});
