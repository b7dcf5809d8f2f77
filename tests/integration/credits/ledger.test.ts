import { afterAll, afterEach, describe, expect, it } from "vitest";
import { closeDb, db } from "@/lib/db/client";
import {
  applyMonthlyAllocation,
  expireBonusPurchases,
  getCreditSummary,
  grantBonusPurchase,
  monthlyBonusPurchased,
  refundReservation,
  reserveCredits,
  settleReservation,
} from "@/lib/credits";
import { AppError } from "@/lib/errors";
import { setEnv } from "@/tests/helpers/env";
import { signIn } from "@/tests/helpers/http";
import { expectLedgerBalances, setSubscriptionCredits } from "./invariant";

afterAll(closeDb);
let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

const DAY = 86_400_000;

async function newUser(autoUse = false) {
  const { user } = await signIn();
  if (autoUse) await (await db()).user.update({ where: { id: user.id }, data: { bonusCreditsAutoUse: true } });
  return user.id;
}

describe("new user", () => {
  it("starts with the free allocation and one monthly_reset row", async () => {
    const userId = await newUser();
    const s = await getCreditSummary(userId);
    expect(s).toMatchObject({
      tier: "free",
      monthlyAllocation: 200,
      subscriptionCredits: 200,
      bonusCredits: 0,
      usableBonusCredits: 0,
      totalUsable: 200,
    });
    expect(s.resetAt).toBeInstanceOf(Date);
    const rows = await (await db()).creditTransaction.findMany({ where: { userId } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ amount: 200, balanceAfter: 200, type: "monthly_reset", operation: "initial_allocation" });
    await expectLedgerBalances(userId);
  });
});

describe("reserveCredits", () => {
  it("charges subscription credits with one usage row, records the charge as reserved, and returns the usable remainder", async () => {
    const userId = await newUser();
    const r = await reserveCredits({ userId, amount: 15, operation: "chat", metadata: { model: "gpt-test" } });
    expect(r).toMatchObject({ userId, amount: 15, charged: true, remaining: 185 });
    const prisma = await db();
    const row = await prisma.creditTransaction.findFirstOrThrow({ where: { userId, type: "usage" } });
    expect(row).toMatchObject({
      amount: -15,
      balanceAfter: 185,
      operation: "chat",
      metadata: { model: "gpt-test" },
      bonusPurchaseId: null,
      operationId: r.id,
    });
    // Every charge has its operation row, so one a crash left unsettled can be found and refunded.
    expect(await prisma.creditOperation.findUniqueOrThrow({ where: { id: r.id } })).toMatchObject({
      kind: "charge",
      status: "reserved",
      amount: 15,
      model: "gpt-test",
    });
    await expectLedgerBalances(userId);
  });

  it("refunds a reserved charge once, even when refunds race; a settled charge is never refunded", async () => {
    const userId = await newUser();
    const r = await reserveCredits({ userId, amount: 20, operation: "stream", metadata: { model: "a" } });
    const results = await Promise.all([refundReservation(r, { reason: "failed" }), refundReservation(r), refundReservation(r)]);
    expect(results.map((x) => x.refunded).sort()).toEqual([0, 0, 20]);
    const prisma = await db();
    const refund = await prisma.creditTransaction.findFirstOrThrow({ where: { userId, type: "refund" } });
    expect(refund).toMatchObject({ amount: 20, balanceAfter: 200, operation: "stream", bonusPurchaseId: null });
    expect(refund.metadata).toMatchObject({ model: "a", reservationId: r.id, reason: "failed" });

    const settledOne = await reserveCredits({ userId, amount: 15, operation: "chat" });
    expect(await settleReservation(settledOne, { metadata: { model: "b" } })).toMatchObject({ settled: true, charged: 15, remaining: 185 });
    expect((await refundReservation(settledOne)).refunded).toBe(0);
    expect((await getCreditSummary(userId)).subscriptionCredits).toBe(185);
    await expectLedgerBalances(userId);
  });

  it("refuses to refund another user's reservation", async () => {
    const a = await newUser();
    const b = await newUser();
    const r = await reserveCredits({ userId: a, amount: 15, operation: "chat" });
    await expect(refundReservation({ ...r, userId: b })).rejects.toMatchObject({ code: "not_found" });
    expect((await getCreditSummary(a)).subscriptionCredits).toBe(185);
    expect((await getCreditSummary(b)).subscriptionCredits).toBe(200);
  });

  it("refuses with insufficient_credits and writes nothing", async () => {
    const userId = await newUser();
    await setSubscriptionCredits(userId, 10);
    const before = await (await db()).creditTransaction.count({ where: { userId } });
    const error = await reserveCredits({ userId, amount: 15, operation: "chat" }).catch((e) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe("insufficient_credits");
    expect(error.message).toBe("Insufficient credits: this operation costs 15, you have 10 available");
    expect(await (await db()).creditTransaction.count({ where: { userId } })).toBe(before);
    expect((await getCreditSummary(userId)).subscriptionCredits).toBe(10);
    await expectLedgerBalances(userId);
  });

  it("spends subscription first, then bonus purchases oldest expiry first, when auto-use is on", async () => {
    const userId = await newUser(true);
    await setSubscriptionCredits(userId, 5);
    const late = await grantBonusPurchase({
      userId,
      orderId: `o-late-${userId}`,
      variantId: "v",
      credits: 10,
      expiresAt: new Date(Date.now() + 20 * DAY),
    });
    const early = await grantBonusPurchase({
      userId,
      orderId: `o-early-${userId}`,
      variantId: "v",
      credits: 10,
      expiresAt: new Date(Date.now() + 10 * DAY),
    });
    const r = await reserveCredits({ userId, amount: 20, operation: "stream" });
    expect(r.remaining).toBe(5);
    const prisma = await db();
    expect((await prisma.bonusPurchase.findUniqueOrThrow({ where: { id: early.purchaseId } })).remaining).toBe(0);
    expect((await prisma.bonusPurchase.findUniqueOrThrow({ where: { id: late.purchaseId } })).remaining).toBe(5);
    const usage = await prisma.creditTransaction.findMany({ where: { userId, type: "usage" }, orderBy: { createdAt: "asc" } });
    expect(usage.map((u) => [u.amount, u.bonusPurchaseId, u.balanceAfter])).toEqual([
      [-5, null, 20],
      [-10, early.purchaseId, 10],
      [-5, late.purchaseId, 5],
    ]);
    await expectLedgerBalances(userId);

    // A full refund returns each credit to the bucket it came from.
    const refund = await refundReservation(r, { reason: "provider_failed" });
    expect(refund).toEqual({ refunded: 20, remaining: 25 });
    expect((await prisma.bonusPurchase.findUniqueOrThrow({ where: { id: early.purchaseId } })).remaining).toBe(10);
    expect((await prisma.bonusPurchase.findUniqueOrThrow({ where: { id: late.purchaseId } })).remaining).toBe(10);
    expect((await getCreditSummary(userId)).subscriptionCredits).toBe(5);
    expect(await refundReservation(r)).toEqual({ refunded: 0, remaining: 25 });
    await expectLedgerBalances(userId);
  });

  it("does not touch bonus credits when auto-use is off and the toggle feature is on", async () => {
    const userId = await newUser(false);
    await setSubscriptionCredits(userId, 5);
    await grantBonusPurchase({ userId, orderId: `o-${userId}`, variantId: "v", credits: 100 });
    const error = await reserveCredits({ userId, amount: 15, operation: "chat" }).catch((e) => e);
    expect(error.message).toBe("Insufficient credits: this operation costs 15, you have 5 available");
    expect(await getCreditSummary(userId)).toMatchObject({ bonusCredits: 100, usableBonusCredits: 0, totalUsable: 5 });
    restore = setEnv({ CREDITS_USER_TOGGLE_ENABLED: "false" });
    const r = await reserveCredits({ userId, amount: 15, operation: "chat" });
    expect(r.remaining).toBe(90);
    await expectLedgerBalances(userId);
  });

  it("never spends expired bonus credits", async () => {
    const userId = await newUser(true);
    await setSubscriptionCredits(userId, 0);
    await grantBonusPurchase({ userId, orderId: `o-${userId}`, variantId: "v", credits: 50, expiresAt: new Date(Date.now() - 1000) });
    const error = await reserveCredits({ userId, amount: 1, operation: "chat" }).catch((e) => e);
    expect(error.code).toBe("insufficient_credits");
    await expectLedgerBalances(userId);
  });

  it("applies an idempotency key once", async () => {
    const userId = await newUser();
    const a = await reserveCredits({ userId, amount: 15, operation: "chat", idempotencyKey: `k-${userId}` });
    const b = await reserveCredits({ userId, amount: 15, operation: "chat", idempotencyKey: `k-${userId}` });
    expect(b.id).toBe(a.id);
    const [c, d] = await Promise.all([
      reserveCredits({ userId, amount: 10, operation: "chat", idempotencyKey: `k2-${userId}` }),
      reserveCredits({ userId, amount: 10, operation: "chat", idempotencyKey: `k2-${userId}` }),
    ]);
    expect(c.id).toBe(d.id);
    expect((await getCreditSummary(userId)).subscriptionCredits).toBe(175);
    expect((await refundReservation(c)).refunded).toBe(10);
    expect((await getCreditSummary(userId)).subscriptionCredits).toBe(185);
    await expectLedgerBalances(userId);
  });

  it("charges nothing in classic_saas mode", async () => {
    const userId = await newUser();
    restore = setEnv({ PUBLIC_PRICING_MODEL: "classic_saas" });
    const r = await reserveCredits({ userId, amount: 15, operation: "chat" });
    expect(r).toMatchObject({ charged: false, amount: 0, remaining: 999999 });
    expect(await refundReservation(r)).toEqual({ refunded: 0, remaining: 999999 });
    restore();
    restore = undefined;
    expect((await getCreditSummary(userId)).subscriptionCredits).toBe(200);
  });

  it("rejects a non-positive or fractional amount", async () => {
    const userId = await newUser();
    for (const amount of [0, -1, 1.5]) {
      const error = await reserveCredits({ userId, amount, operation: "chat" }).catch((e) => e);
      expect(error.code).toBe("bad_request");
    }
  });
});

describe("settlement at the final amount", () => {
  it("settles once, merging metadata; less than reserved returns the last-drawn credits first as refund rows", async () => {
    const userId = await newUser(true);
    await setSubscriptionCredits(userId, 10);
    const p = await grantBonusPurchase({ userId, orderId: `o-${userId}`, variantId: "v", credits: 30 });
    const r = await reserveCredits({ userId, amount: 30, operation: "batch_chat" });
    const settled = await settleReservation(r, { amount: 5, costMicros: 1234, metadata: { model: "m1", promptTokens: 10 } });
    // 20 came back to the bonus purchase (drawn last), 5 to the subscription.
    expect(settled).toEqual({ settled: true, charged: 5, remaining: 35 });
    const prisma = await db();
    const op = await prisma.creditOperation.findUniqueOrThrow({ where: { id: r.id } });
    expect(op).toMatchObject({ status: "settled", amount: 5, model: "m1", costMicros: BigInt(1234) });
    expect((op.details as { metadata?: unknown }).metadata).toEqual({ model: "m1", promptTokens: 10 });
    // The charge's ledger rows are its draws: net of what came back, 5 subscription credits stay spent.
    const own = await prisma.creditTransaction.findMany({ where: { operationId: r.id } });
    const kept = (bucket: string | null) => own.filter((x) => x.bonusPurchaseId === bucket).reduce((n, x) => n - x.amount, 0);
    expect([kept(null), kept(p.purchaseId)]).toEqual([5, 0]);
    expect((await prisma.bonusPurchase.findUniqueOrThrow({ where: { id: p.purchaseId } })).remaining).toBe(30);
    expect((await getCreditSummary(userId)).subscriptionCredits).toBe(5);
    const refunds = await prisma.creditTransaction.findMany({ where: { userId, type: "refund" }, orderBy: { createdAt: "asc" } });
    expect(refunds.map((x) => [x.amount, x.bonusPurchaseId])).toEqual([
      [20, p.purchaseId],
      [5, null],
    ]);
    expect(refunds[0].metadata).toMatchObject({ model: "m1", reason: "unused_reservation", reservationId: r.id });
    // Settling again, or refunding, changes nothing: the charge is no longer reserved.
    expect(await settleReservation(r, { amount: 1, metadata: { model: "m2" } })).toMatchObject({ settled: false });
    expect((await refundReservation(r)).refunded).toBe(0);
    const usage = await prisma.creditTransaction.findMany({ where: { operationId: r.id, type: "usage" } });
    expect(usage.every((u) => (u.metadata as { model?: string }).model === "m1")).toBe(true);
    await expectLedgerBalances(userId);
  });

  it("draws the rest when the work cost more than reserved, never below zero, recording what it could not draw", async () => {
    const userId = await newUser();
    const r = await reserveCredits({ userId, amount: 10, operation: "chat" });
    expect(await settleReservation(r, { amount: 25 })).toEqual({ settled: true, charged: 25, remaining: 175 });
    const r2 = await reserveCredits({ userId, amount: 100, operation: "chat" });
    await setSubscriptionCredits(userId, 5);
    expect(await settleReservation(r2, { amount: 130 })).toEqual({ settled: true, charged: 105, remaining: 0 });
    const prisma = await db();
    const op = await prisma.creditOperation.findUniqueOrThrow({ where: { id: r2.id } });
    expect(op.amount).toBe(105);
    expect((op.details as { uncollected?: number }).uncollected).toBe(25);
    expect((await getCreditSummary(userId)).subscriptionCredits).toBe(0);
  });
});

describe("monthly allocation", () => {
  it("sets subscription credits to the tier allocation once per cycle key", async () => {
    const userId = await newUser();
    await reserveCredits({ userId, amount: 50, operation: "chat" });
    const prisma = await db();
    await prisma.user.update({ where: { id: userId }, data: { tier: "pro" } });
    expect(await applyMonthlyAllocation({ userId, tier: "pro", cycleKey: "sub-1:2026-11-01" })).toEqual({ applied: true });
    expect(await applyMonthlyAllocation({ userId, tier: "pro", cycleKey: "sub-1:2026-11-01" })).toEqual({ applied: false });
    const s = await getCreditSummary(userId);
    expect(s).toMatchObject({ tier: "pro", monthlyAllocation: 5000, subscriptionCredits: 5000 });
    const reset = await prisma.creditTransaction.findFirstOrThrow({ where: { userId, operation: "monthly_reset" } });
    expect(reset).toMatchObject({ amount: 4850, balanceAfter: 5000, type: "monthly_reset" });
    await expectLedgerBalances(userId);
  });

  it("rolls a free user over lazily at the calendar month, exactly once under concurrency", async () => {
    const userId = await newUser();
    await reserveCredits({ userId, amount: 120, operation: "chat" });
    const prisma = await db();
    // Pretend the last reset was last month.
    const lastMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 1, 15));
    await prisma.creditBalance.update({ where: { userId }, data: { resetAt: lastMonth } });
    await prisma.creditOperation.updateMany({ where: { userId, kind: "reset" }, data: { idempotencyKey: `reset:${userId}:old` } });
    const summaries = await Promise.all([
      getCreditSummary(userId),
      getCreditSummary(userId),
      reserveCredits({ userId, amount: 15, operation: "chat" }),
    ]);
    expect(await prisma.creditTransaction.count({ where: { userId, operation: "monthly_rollover" } })).toBe(1);
    expect((await getCreditSummary(userId)).subscriptionCredits).toBe(185);
    expect(summaries[0].resetAt!.getTime()).toBeGreaterThan(lastMonth.getTime());
    await expectLedgerBalances(userId);
  });
});

describe("monthly allocation in the caller's transaction", () => {
  it("joins the caller's transaction (rolled back with it) and refuses an unknown tier", async () => {
    const userId = await newUser();
    const prisma = await db();
    await expect(
      prisma.$transaction(async (tx) => {
        expect(await applyMonthlyAllocation({ userId, tier: "basic", cycleKey: "rollback-test" }, tx)).toEqual({ applied: true });
        throw new Error("caller failed");
      }),
    ).rejects.toThrow("caller failed");
    expect((await getCreditSummary(userId)).subscriptionCredits).toBe(200);
    expect(await applyMonthlyAllocation({ userId, tier: "basic", cycleKey: "rollback-test" })).toEqual({ applied: true });
    expect((await getCreditSummary(userId)).subscriptionCredits).toBe(1000);
    await expect(applyMonthlyAllocation({ userId, tier: "platinum", cycleKey: "x" })).rejects.toMatchObject({ code: "bad_request" });
    await expectLedgerBalances(userId);
  });
});

describe("bonus purchases", () => {
  it("a refund into a purchase that expired meanwhile is expired again by the next run", async () => {
    const userId = await newUser(true);
    const prisma = await db();
    await setSubscriptionCredits(userId, 0);
    const p = await grantBonusPurchase({
      userId,
      orderId: `re-${userId}`,
      variantId: "v",
      credits: 50,
      expiresAt: new Date(Date.now() + 1500),
    });
    const r = await reserveCredits({ userId, amount: 20, operation: "chat" });
    await new Promise((done) => setTimeout(done, 1600));
    await expireBonusPurchases();
    expect((await prisma.bonusPurchase.findUniqueOrThrow({ where: { id: p.purchaseId } })).remaining).toBe(0);
    const refund = await refundReservation(r);
    expect(refund).toEqual({ refunded: 20, remaining: 0 });
    const row = await prisma.creditTransaction.findFirstOrThrow({ where: { userId, type: "refund" } });
    expect(row.balanceAfter).toBe(0); // credits of an expired purchase are not part of the balance
    expect((await expireBonusPurchases()).expiredCount).toBe(1);
    expect((await prisma.bonusPurchase.findUniqueOrThrow({ where: { id: p.purchaseId } })).remaining).toBe(0);
    await expectLedgerBalances(userId);
  });

  it("grants once per order id and counts this month's purchases", async () => {
    const userId = await newUser();
    const a = await grantBonusPurchase({ userId, orderId: `ord-${userId}`, variantId: "local-bonus-basic-500", credits: 500, price: 4.99 });
    const b = await grantBonusPurchase({ userId, orderId: `ord-${userId}`, variantId: "local-bonus-basic-500", credits: 500, price: 4.99 });
    expect(a.granted).toBe(true);
    expect(b).toEqual({ granted: false, purchaseId: a.purchaseId });
    expect(await monthlyBonusPurchased(userId)).toBe(500);
    expect(await monthlyBonusPurchased(userId, new Date(Date.now() + 40 * DAY))).toBe(0);
    const p = await (await db()).bonusPurchase.findUniqueOrThrow({ where: { id: a.purchaseId } });
    expect(p.expiresAt.getTime()).toBeGreaterThan(Date.now() + 364 * DAY);
    const row = await (await db()).creditTransaction.findFirstOrThrow({ where: { userId, type: "purchase" } });
    expect(row).toMatchObject({ amount: 500, balanceAfter: 700, operation: "bonus_purchase", bonusPurchaseId: a.purchaseId });
    await expectLedgerBalances(userId);
  });

  it("expires purchases past their expiry with an adjustment row, once", async () => {
    const userId = await newUser(true);
    const prisma = await db();
    const old = await grantBonusPurchase({
      userId,
      orderId: `old-${userId}`,
      variantId: "v",
      credits: 40,
      expiresAt: new Date(Date.now() + 1 * DAY),
    });
    const fresh = await grantBonusPurchase({
      userId,
      orderId: `fresh-${userId}`,
      variantId: "v",
      credits: 60,
      expiresAt: new Date(Date.now() + 30 * DAY),
    });
    await setSubscriptionCredits(userId, 0);
    await reserveCredits({ userId, amount: 10, operation: "chat" });
    const later = new Date(Date.now() + 2 * DAY);
    const first = await expireBonusPurchases(later);
    expect(first.expiredCount).toBeGreaterThanOrEqual(1);
    const p = await prisma.bonusPurchase.findUniqueOrThrow({ where: { id: old.purchaseId } });
    expect(p.remaining).toBe(0);
    expect(p.expiredAt).not.toBeNull();
    const adj = await prisma.creditTransaction.findFirstOrThrow({ where: { bonusPurchaseId: old.purchaseId, type: "adjustment" } });
    expect(adj).toMatchObject({ amount: -30, operation: "bonus_expiry" });
    expect((await prisma.bonusPurchase.findUniqueOrThrow({ where: { id: fresh.purchaseId } })).remaining).toBe(60);
    const again = await expireBonusPurchases(later);
    expect(await prisma.creditTransaction.count({ where: { bonusPurchaseId: old.purchaseId, type: "adjustment" } })).toBe(1);
    expect(again.expiredCount).toBe(0);
    await expectLedgerBalances(userId);
  });
});
