import { afterAll, describe, expect, it } from "vitest";
import * as usageRoute from "@/app/api/ai/usage/route";
import { heldBonusByAccount } from "@/lib/admin/held-bonus";
import { grantBonusPurchase, reserveCredits } from "@/lib/credits";
import { closeDb, db, dbRunner } from "@/lib/db/client";
import { call, signIn } from "@/tests/helpers/http";
import { expectLedgerBalances } from "./invariant";

afterAll(closeDb);

/**
 * Two money rules each have one home, a database function (docs/ARCHITECTURE.md "Money rules"):
 * `held_bonus` (the bonus credits an account holds) and `free_rollover_due` (a free account's month
 * has turned). Every reader asks it, so the usage read, a charge and the operator's search cannot
 * disagree. These tests walk each rule's cases through the function and through its callers.
 */
const monthStartUtc = (monthsAgo = 0) => new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - monthsAgo, 1));

describe("held_bonus: the bonus credits an account holds", () => {
  it("counts the unexpired purchases' credits, and the usage read, a charge and the operator's search agree", async () => {
    const { user, cookie } = await signIn();
    const prisma = await db();
    await prisma.user.update({ where: { id: user.id }, data: { bonusCreditsAutoUse: true } });
    for (const [orderId, credits] of [
      ["live", 100],
      ["expired", 40],
    ] as const)
      await grantBonusPurchase({ userId: user.id, orderId: `${orderId}-${user.id}`, variantId: "v", credits });
    await prisma.bonusPurchase.update({ where: { orderId: `expired-${user.id}` }, data: { expiresAt: new Date(Date.now() - 1000) } });

    const [{ credits }] = await (await dbRunner()).query<{ credits: number }>("SELECT h.credits FROM held_bonus($1) h", [user.id]);
    expect(credits).toBe(100);
    expect((await heldBonusByAccount([user.id])).get(user.id)).toBe(100);
    const usage = await call(usageRoute.GET, { path: "/api/ai/usage", cookie });
    expect(usage.body).toMatchObject({ bonusCredits: 100, remaining: 200 });

    // A charge larger than the subscription credits draws on the live purchase only (the charge's
    // remaining counts every usable credit; the usage read's, the subscription credits).
    const charge = await reserveCredits({ userId: user.id, amount: 250, operation: "chat" });
    expect(charge).toMatchObject({ charged: true, remaining: 50 });
    expect((await call(usageRoute.GET, { path: "/api/ai/usage", cookie })).body).toMatchObject({ bonusCredits: 50, remaining: 0 });
    // 51 is more than it holds: refused, nothing drawn from the expired purchase.
    await expect(reserveCredits({ userId: user.id, amount: 51, operation: "chat" })).rejects.toMatchObject({
      code: "insufficient_credits",
    });
    expect((await prisma.bonusPurchase.findUniqueOrThrow({ where: { orderId: `expired-${user.id}` } })).remaining).toBe(40);
    await expectLedgerBalances(user.id);
  });

  it("holds nothing for an account without purchases; the operator's search leaves it out", async () => {
    const { user } = await signIn();
    const [{ credits }] = await (await dbRunner()).query<{ credits: number }>("SELECT h.credits FROM held_bonus($1) h", [user.id]);
    expect(credits).toBe(0);
    expect((await heldBonusByAccount([user.id])).has(user.id)).toBe(false);
  });
});

describe("free_rollover_due: a free account's month has turned", () => {
  it("is due for the free tier without a reset or with one before this month, never for a paid tier", async () => {
    const runner = await dbRunner();
    const due = async (tier: string, resetAt: Date | null) =>
      (
        await runner.query<{ due: boolean }>("SELECT free_rollover_due($1, $2::timestamptz, $3::timestamptz) AS due", [
          tier,
          resetAt?.toISOString() ?? null,
          monthStartUtc().toISOString(),
        ])
      )[0].due;
    expect(await due("free", null)).toBe(true);
    expect(await due("free", new Date(monthStartUtc().getTime() - 1))).toBe(true);
    expect(await due("free", monthStartUtc())).toBe(false);
    expect(await due("free", new Date())).toBe(false);
    expect(await due("pro", new Date(monthStartUtc(2).getTime()))).toBe(false);
    expect(await due("pro", null)).toBe(false);
  });

  it("a charge applies it once, and the usage read then finds nothing due", async () => {
    const { user, cookie } = await signIn();
    const prisma = await db();
    await reserveCredits({ userId: user.id, amount: 150, operation: "chat" });
    await prisma.creditBalance.update({ where: { userId: user.id }, data: { resetAt: new Date(monthStartUtc(1).getTime() + 86_400_000) } });
    await prisma.creditOperation.updateMany({
      where: { userId: user.id, kind: "reset" },
      data: { idempotencyKey: `reset:${user.id}:old` },
    });

    const charge = await reserveCredits({ userId: user.id, amount: 10, operation: "chat" });
    expect(charge).toMatchObject({ charged: true, remaining: 190 });
    expect((await call(usageRoute.GET, { path: "/api/ai/usage", cookie })).body).toMatchObject({ remaining: 190, used: 10 });
    expect(await prisma.creditTransaction.count({ where: { userId: user.id, operation: "monthly_rollover" } })).toBe(1);
    await expectLedgerBalances(user.id);
  });

  it("a paid account's old reset rolls nothing over, by a charge or the usage read (its allocation comes with its payment)", async () => {
    const { user, cookie } = await signIn();
    const prisma = await db();
    await prisma.user.update({ where: { id: user.id }, data: { tier: "pro" } });
    await prisma.creditBalance.update({ where: { userId: user.id }, data: { resetAt: monthStartUtc(2) } });
    await reserveCredits({ userId: user.id, amount: 10, operation: "chat" });
    await call(usageRoute.GET, { path: "/api/ai/usage", cookie });
    expect(await prisma.creditTransaction.count({ where: { userId: user.id, operation: "monthly_rollover" } })).toBe(0);
    await expectLedgerBalances(user.id);
  });
});
