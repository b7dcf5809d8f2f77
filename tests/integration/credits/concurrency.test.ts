import { afterAll, describe, expect, it } from "vitest";
import { grantBonusPurchase, reserveCredits } from "@/lib/credits";
import { closeDb, db, dbKind } from "@/lib/db/client";
import { signIn } from "@/tests/helpers/http";
import { expectLedgerBalances, setSubscriptionCredits } from "./invariant";

/**
 * The concurrency proof's shape on the embedded PGlite (one connection, so statements interleave
 * between awaits rather than run in parallel): W concurrent workers x N charges of 1 against 1,000.
 * The full 64 x 100 run against a real PostgreSQL is tests/pg/credits-concurrency.test.ts.
 */
afterAll(closeDb);

const WORKERS = 64;
const CHARGES = 20;
const DAY = 86_400_000;

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

describe("credit charging under concurrency (PGlite)", () => {
  it("runs on PGlite", async () => {
    expect(await dbKind()).toBe("pglite");
  });

  it(`${WORKERS} workers x ${CHARGES} charges against 1,000 subscription credits: exactly 1,000 succeed, balance 0`, async () => {
    const { user } = await signIn();
    await setSubscriptionCredits(user.id, 1000);
    const { ok, refused, other } = await hammer(user.id);
    expect(other).toEqual([]);
    expect(ok).toBe(1000);
    expect(refused).toBe(WORKERS * CHARGES - 1000);
    expect((await (await db()).creditBalance.findUniqueOrThrow({ where: { userId: user.id } })).subscriptionCredits).toBe(0);
    const usage = await (await db()).creditTransaction.findMany({ where: { userId: user.id, type: "usage" } });
    expect(usage.map((u) => u.balanceAfter).sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    await expectLedgerBalances(user.id);
  }, 120_000);

  it("the same with the balance split between subscription and two bonus purchases", async () => {
    const { user } = await signIn();
    await (await db()).user.update({ where: { id: user.id }, data: { bonusCreditsAutoUse: true } });
    await setSubscriptionCredits(user.id, 400);
    const a = await grantBonusPurchase({
      userId: user.id,
      orderId: `a-${user.id}`,
      variantId: "v",
      credits: 300,
      expiresAt: new Date(Date.now() + 10 * DAY),
    });
    const b = await grantBonusPurchase({
      userId: user.id,
      orderId: `b-${user.id}`,
      variantId: "v",
      credits: 300,
      expiresAt: new Date(Date.now() + 20 * DAY),
    });
    const { ok, refused, other } = await hammer(user.id);
    expect(other).toEqual([]);
    expect(ok).toBe(1000);
    expect(refused).toBe(WORKERS * CHARGES - 1000);
    const prisma = await db();
    expect((await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } })).subscriptionCredits).toBe(0);
    expect((await prisma.bonusPurchase.findMany({ where: { id: { in: [a.purchaseId, b.purchaseId] } } })).map((p) => p.remaining)).toEqual([
      0, 0,
    ]);
    const usage = await prisma.creditTransaction.findMany({ where: { userId: user.id, type: "usage" } });
    expect(usage.map((u) => u.balanceAfter).sort((x, y) => x - y)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    for (const u of usage) {
      if (u.bonusPurchaseId === null) expect(u.balanceAfter).toBeGreaterThanOrEqual(600);
      else if (u.bonusPurchaseId === a.purchaseId) expect(u.balanceAfter).toBeGreaterThanOrEqual(300);
      else expect(u.balanceAfter).toBeLessThan(300);
    }
    await expectLedgerBalances(user.id);
  }, 120_000);
});
