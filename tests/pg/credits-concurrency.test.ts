import { describe, expect, it } from "vitest";
import {
  applyMonthlyAllocation,
  expireBonusPurchases,
  grantBonusPurchase,
  refundReservation,
  reserveCredits,
  type Reservation,
} from "@/lib/credits";
import { db, dbKind } from "@/lib/db/client";
import { ensureUser } from "@/lib/users/ensure-user";
import { useFreshPostgres } from "@/tests/helpers/pg";
import { expectLedgerBalances, setSubscriptionCredits } from "@/tests/integration/credits/invariant";

/**
 * The concurrency proof on a real PostgreSQL (SPEC's "a balance never goes below zero, whatever the
 * concurrency"): 64 concurrent workers x 100 charges of 1 credit against 1,000 credits.
 */
process.env.DATABASE_POOL_MAX = "64";
await useFreshPostgres();

const WORKERS = 64;
const CHARGES = 100;
const DAY = 86_400_000;

async function newUser(autoUse: boolean) {
  const { user } = await ensureUser({ email: `pg-${crypto.randomUUID()}@example.com` });
  if (autoUse) await (await db()).user.update({ where: { id: user.id }, data: { bonusCreditsAutoUse: true } });
  return user.id;
}

/** Runs WORKERS workers, each making CHARGES sequential charges of 1; counts successes and 402s. */
async function hammer(userId: string) {
  let ok = 0;
  let refused = 0;
  const other: unknown[] = [];
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      for (let i = 0; i < CHARGES; i++) {
        try {
          await reserveCredits({ userId, amount: 1, operation: "concurrency_test" });
          ok += 1;
        } catch (error) {
          if ((error as { code?: string }).code === "insufficient_credits") refused += 1;
          else other.push(error);
        }
      }
    }),
  );
  return { ok, refused, other };
}

async function usageBalanceAfters(userId: string) {
  const rows = await (
    await db()
  ).creditTransaction.findMany({ where: { userId, type: "usage" }, select: { balanceAfter: true, bonusPurchaseId: true, amount: true } });
  return rows;
}

describe("credit charging under concurrency (PostgreSQL)", () => {
  it("runs on PostgreSQL", async () => {
    expect(await dbKind()).toBe("postgres");
  });

  it("64 workers x 100 charges against 1,000 subscription credits: exactly 1,000 succeed, balance 0", async () => {
    const userId = await newUser(false);
    await setSubscriptionCredits(userId, 1000);
    const { ok, refused, other } = await hammer(userId);
    expect(other).toEqual([]);
    expect(ok).toBe(1000);
    expect(refused).toBe(WORKERS * CHARGES - 1000);
    const balance = await (await db()).creditBalance.findUniqueOrThrow({ where: { userId } });
    expect(balance.subscriptionCredits).toBe(0);
    const usage = await usageBalanceAfters(userId);
    expect(usage).toHaveLength(1000);
    // Every charge saw a distinct balance: they were serialized, none lost or doubled.
    expect(usage.map((u) => u.balanceAfter).sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    await expectLedgerBalances(userId);
  });

  it("the same with 1,000 credits split between subscription and two bonus purchases, consumed in order", async () => {
    const userId = await newUser(true);
    await setSubscriptionCredits(userId, 400);
    const early = await grantBonusPurchase({
      userId,
      orderId: `early-${userId}`,
      variantId: "v",
      credits: 300,
      expiresAt: new Date(Date.now() + 10 * DAY),
    });
    const late = await grantBonusPurchase({
      userId,
      orderId: `late-${userId}`,
      variantId: "v",
      credits: 300,
      expiresAt: new Date(Date.now() + 20 * DAY),
    });
    const { ok, refused, other } = await hammer(userId);
    expect(other).toEqual([]);
    expect(ok).toBe(1000);
    expect(refused).toBe(WORKERS * CHARGES - 1000);
    const prisma = await db();
    expect((await prisma.creditBalance.findUniqueOrThrow({ where: { userId } })).subscriptionCredits).toBe(0);
    expect((await prisma.bonusPurchase.findUniqueOrThrow({ where: { id: early.purchaseId } })).remaining).toBe(0);
    expect((await prisma.bonusPurchase.findUniqueOrThrow({ where: { id: late.purchaseId } })).remaining).toBe(0);
    const usage = await usageBalanceAfters(userId);
    expect(usage).toHaveLength(1000);
    expect(usage.map((u) => u.balanceAfter).sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    // Order: subscription credits while the total was 999..600, then the earlier-expiring purchase, then the later one.
    for (const u of usage) {
      if (u.bonusPurchaseId === null) expect(u.balanceAfter).toBeGreaterThanOrEqual(600);
      else if (u.bonusPurchaseId === early.purchaseId) expect(u.balanceAfter).toBeGreaterThanOrEqual(300);
      else expect(u.balanceAfter).toBeLessThan(300);
    }
    await expectLedgerBalances(userId);
  });

  it("refunds, grants and allocations stay exactly-once under concurrency", async () => {
    const userId = await newUser(true);
    await setSubscriptionCredits(userId, 100);
    const prisma = await db();
    // 20 charges of 5, each refunded by 5 concurrent callers: every one refunded exactly once.
    const reservations: Reservation[] = await Promise.all(
      Array.from({ length: 20 }, () => reserveCredits({ userId, amount: 5, operation: "chat" })),
    );
    const refunds = await Promise.all(
      reservations.flatMap((r) => Array.from({ length: 5 }, () => refundReservation(r, { reason: "provider_failed" }))),
    );
    expect(refunds.reduce((s, r) => s + r.refunded, 0)).toBe(100);
    expect((await prisma.creditBalance.findUniqueOrThrow({ where: { userId } })).subscriptionCredits).toBe(100);
    // The same order delivered 10 times at once: granted once.
    const grants = await Promise.all(
      Array.from({ length: 10 }, () => grantBonusPurchase({ userId, orderId: `dup-${userId}`, variantId: "v", credits: 50 })),
    );
    expect(grants.filter((g) => g.granted)).toHaveLength(1);
    expect(new Set(grants.map((g) => g.purchaseId)).size).toBe(1);
    // The same allocation cycle applied 10 times at once: applied once.
    await prisma.user.update({ where: { id: userId }, data: { tier: "basic" } });
    const resets = await Promise.all(
      Array.from({ length: 10 }, () => applyMonthlyAllocation({ userId, tier: "basic", cycleKey: `sub:1:${userId}` })),
    );
    expect(resets.filter((r) => r.applied)).toHaveLength(1);
    expect((await prisma.creditBalance.findUniqueOrThrow({ where: { userId } })).subscriptionCredits).toBe(1000);
    await expectLedgerBalances(userId);
  });

  it("the free tier's lazy monthly rollover applies exactly once under 64 concurrent charges", async () => {
    const userId = await newUser(false);
    const prisma = await db();
    await prisma.creditBalance.update({ where: { userId }, data: { resetAt: new Date(Date.UTC(2020, 0, 15)) } });
    await prisma.creditOperation.updateMany({ where: { userId, kind: "reset" }, data: { idempotencyKey: `reset:${userId}:2020-01` } });
    await setSubscriptionCredits(userId, 3);
    const results = await Promise.allSettled(
      Array.from({ length: WORKERS }, () => reserveCredits({ userId, amount: 1, operation: "chat" })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(WORKERS);
    expect(await prisma.creditTransaction.count({ where: { userId, operation: "monthly_rollover" } })).toBe(1);
    expect((await prisma.creditBalance.findUniqueOrThrow({ where: { userId } })).subscriptionCredits).toBe(200 - WORKERS);
    await expectLedgerBalances(userId);
  });

  it("bonus expiry racing with charges never spends expired credits or breaks the ledger", async () => {
    const userId = await newUser(true);
    await setSubscriptionCredits(userId, 0);
    const soon = await grantBonusPurchase({
      userId,
      orderId: `soon-${userId}`,
      variantId: "v",
      credits: 500,
      expiresAt: new Date(Date.now() + DAY),
    });
    await grantBonusPurchase({
      userId,
      orderId: `later-${userId}`,
      variantId: "v",
      credits: 500,
      expiresAt: new Date(Date.now() + 30 * DAY),
    });
    const prisma = await db();
    const charging = hammer(userId);
    // The first purchase reaches its end while the charges run (its expiry moved to now, not waited
    // for), and two expiry jobs race with the charges and each other.
    await prisma.creditOperation.findFirst({ where: { userId, kind: "charge" } });
    await prisma.bonusPurchase.update({ where: { id: soon.purchaseId }, data: { expiresAt: new Date() } });
    const [{ expiredCount }] = await Promise.all([expireBonusPurchases(), expireBonusPurchases()]);
    const { ok, other } = await charging;
    expect(other).toEqual([]);
    const p = await prisma.bonusPurchase.findUniqueOrThrow({ where: { id: soon.purchaseId } });
    const expiredRows = await prisma.creditTransaction.findMany({ where: { bonusPurchaseId: soon.purchaseId, type: "adjustment" } });
    expect(p.remaining).toBe(0);
    expect(expiredRows.length).toBeLessThanOrEqual(1);
    const expired = -(expiredRows[0]?.amount ?? 0);
    expect(ok + expired).toBeLessThanOrEqual(1000);
    expect(expiredCount).toBeGreaterThanOrEqual(0);
    await expectLedgerBalances(userId);
  });
});
