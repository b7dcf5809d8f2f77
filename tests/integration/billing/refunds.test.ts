import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as chat from "@/app/api/ai/chat/route";
import * as receipts from "@/app/api/payments/receipts/route";
import * as simulatorRefund from "@/app/api/simulator/refund/route";
import { refundReservation, reserveCredits } from "@/lib/credits";
import { closeDb, db } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { deliver, invoiceEvent, orderEvent, subscriptionEvent } from "./fixtures";
import { refundEvent, refundRacingCharges } from "./refund-race";
import { actingAs, team } from "@/tests/integration/organisations/org-test-kit";

const signInAgain = async (email: string | null) => signIn(email as string);

// Refunds, not rate limiting, are under test here.
const restore = setEnv({ RATE_LIMIT_ENABLED: "false" });
afterAll(async () => {
  restore();
  await closeDb();
});

const PACK = "local-bonus-basic-500"; // 500 credits for $4.99

async function account(userId: string) {
  const prisma = await db();
  const balance = await prisma.creditBalance.findUniqueOrThrow({ where: { userId } });
  const purchases = await prisma.bonusPurchase.findMany({ where: { userId, expiresAt: { gt: new Date() } } });
  const held = purchases.reduce((s, p) => s + p.remaining, 0);
  const rows = await prisma.creditTransaction.findMany({ where: { userId }, orderBy: { createdAt: "asc" } });
  return {
    subscription: balance.subscriptionCredits,
    held,
    debt: balance.debt,
    balance: balance.subscriptionCredits + held - balance.debt,
    ledgerSum: rows.reduce((s, r) => s + r.amount, 0),
    lastBalanceAfter: rows.at(-1)?.balanceAfter,
    rows,
  };
}

/** Spends `amount` credits (subscription credits first, then bonus: auto-use on). */
async function spend(userId: string, amount: number) {
  return reserveCredits({ userId, amount, operation: "chat" });
}

async function buyPack(userId: string, id: string) {
  const order = orderEvent({ id, userId, variantId: PACK });
  const res = await deliver(order);
  expect(res.status).toBe(200);
  expect(res.body.status).toBe("processed");
  return order;
}

describe("refunds take back what a payment bought (order_refunded, subscription_payment_refunded)", () => {
  let n = 0;
  const fresh = async () => {
    const { user, cookie } = await signIn(`refund-${Date.now()}-${++n}@example.com`);
    await (await db()).user.update({ where: { id: user.id }, data: { bonusCreditsAutoUse: true } });
    return { user, cookie, order: `ord-refund-${user.id}` };
  };

  beforeAll(async () => {
    await db();
  });

  it("an unspent pack refunded in full: its 500 credits leave, a replay or a late partial event takes nothing more", async () => {
    const { user, order: id } = await fresh();
    const before = await account(user.id);
    const order = await buyPack(user.id, id);
    expect((await account(user.id)).balance).toBe(before.balance + 500);
    const refunded = await deliver(refundEvent(order, 499));
    expect(refunded.status).toBe(200);
    expect(refunded.body).toMatchObject({ type: "order_refunded", status: "processed" });
    const after = await account(user.id);
    expect(after.balance).toBe(before.balance);
    expect(after.debt).toBe(0);
    expect(after.ledgerSum).toBe(after.balance);
    expect(after.lastBalanceAfter).toBe(after.balance);
    const row = after.rows.at(-1)!;
    expect(row).toMatchObject({ amount: -500, type: "adjustment", operation: "payment_refunded" });
    // The same event again, and a partial refund event arriving late: nothing changes.
    expect((await deliver(refundEvent(order, 499))).body.duplicate).toBe(true);
    await deliver(refundEvent(order, 200, "2026-11-01T12:00:00.000Z"));
    expect((await account(user.id)).balance).toBe(before.balance);
    const payment = await (await db()).payment.findFirstOrThrow({ where: { userId: user.id } });
    expect(payment).toMatchObject({
      kind: "pack",
      status: "refunded",
      amount: 499,
      refundedAmount: 499,
      credits: 500,
      creditsTakenBack: 500,
    });
  });

  it("partial refunds take back in proportion, cumulatively, in either order", async () => {
    const { user, order: id } = await fresh();
    const before = await account(user.id);
    const order = await buyPack(user.id, id);
    await deliver(refundEvent(order, 250)); // floor(500 × 250 / 499) = 250
    expect((await account(user.id)).balance).toBe(before.balance + 250);
    await deliver(refundEvent(order, 499));
    expect((await account(user.id)).balance).toBe(before.balance);

    const other = await fresh();
    const base = await account(other.user.id);
    const order2 = await buyPack(other.user.id, other.order);
    await deliver(refundEvent(order2, 499, "2026-11-03T00:00:00.000Z"));
    await deliver(refundEvent(order2, 250, "2026-11-02T00:00:00.000Z")); // older, smaller: nothing more
    const after = await account(other.user.id);
    expect(after.balance).toBe(base.balance);
    expect(after.ledgerSum).toBe(after.balance);
  });

  it("spent credits become debt: charges answer 402 naming the refund; a purchase pays the debt first, then charges resume", async () => {
    const { user, cookie, order: id } = await fresh();
    const start = await account(user.id);
    const order = await buyPack(user.id, id);
    await spend(user.id, start.subscription + 300); // the allocation, then 300 of the pack
    expect((await account(user.id)).held).toBe(200);
    await deliver(refundEvent(order, 499));
    const owed = await account(user.id);
    expect(owed).toMatchObject({ subscription: 0, held: 0, debt: 300, balance: -300 });
    expect(owed.ledgerSum).toBe(owed.balance);
    expect(owed.rows.slice(-2).map((r) => [r.operation, r.amount])).toEqual([
      ["payment_refunded", -200],
      ["refund_debt", -300],
    ]);

    const refused = await call(chat.POST, { path: "/api/ai/chat", cookie, body: { messages: [{ role: "user", content: "hi" }] } });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatch(
      /owes 300 credits taken back by a refunded payment \(the refund of 500 bonus credits on \d{4}-\d{2}-\d{2}\)/,
    );
    await expect(spend(user.id, 1)).rejects.toMatchObject({ code: "insufficient_credits", reason: "refund_debt" });

    // A second pack: 300 of it pays the debt, 200 remain, and charges resume.
    await buyPack(user.id, `${id}-2`);
    const paid = await account(user.id);
    expect(paid).toMatchObject({ debt: 0, held: 200, balance: 200 });
    expect(paid.ledgerSum).toBe(paid.balance);
    const ok = await call(chat.POST, { path: "/api/ai/chat", cookie, body: { messages: [{ role: "user", content: "hi" }] } });
    expect(ok.status).toBe(200);
  });

  it("a call refunded after its pack was refunded pays the debt its credits became, never refilling the refunded pack", async () => {
    const { user, order: id } = await fresh();
    const start = await account(user.id);
    const order = await buyPack(user.id, id);
    await spend(user.id, start.subscription); // the allocation
    // A call reserves 300 of the pack; the pack is refunded while it runs; then the call fails and is refunded.
    const inFlight = await spend(user.id, 300);
    await deliver(refundEvent(order, 499));
    expect(await account(user.id)).toMatchObject({ held: 0, debt: 300, balance: -300 });
    await refundReservation(inFlight);
    const after = await account(user.id);
    expect(after).toMatchObject({ held: 0, debt: 0, balance: 0 });
    expect(after.ledgerSum).toBe(after.balance);
    const prisma = await db();
    expect(await prisma.bonusPurchase.findFirstOrThrow({ where: { orderId: id } })).toMatchObject({ remaining: 0, takenBack: 500 });
  });

  it("a refund that arrives before its order: the order's credits are granted and taken back at once", async () => {
    const { user, order: id } = await fresh();
    const before = await account(user.id);
    const order = orderEvent({ id, userId: user.id, variantId: PACK });
    const early = await deliver(refundEvent(order, 499));
    expect(early.body.status).toBe("processed");
    expect((await account(user.id)).balance).toBe(before.balance);
    await deliver(order);
    const after = await account(user.id);
    expect(after.balance).toBe(before.balance);
    expect(after.ledgerSum).toBe(after.balance);
    expect(await (await db()).payment.count({ where: { userId: user.id } })).toBe(1);
  });

  it("a refunded subscription invoice takes back its allocation while it is the current one", async () => {
    const { user } = await fresh();
    const subscriptionId = `sub-refund-${user.id}`;
    const at = new Date();
    await deliver(
      subscriptionEvent("subscription_created", {
        id: subscriptionId,
        userId: user.id,
        variantId: "local-basic-monthly",
        status: "active",
        updatedAt: at,
      }),
    );
    const paid = invoiceEvent("subscription_payment_success", {
      id: `inv-${user.id}`,
      subscriptionId,
      userId: user.id,
      billingReason: "initial",
      updatedAt: at,
    });
    expect((await deliver(paid)).body.status).toBe("processed");
    const before = await account(user.id);
    expect(before.subscription).toBe(1000);
    await spend(user.id, 400);
    const refund = { ...paid, meta: { ...paid.meta, event_name: "subscription_payment_refunded" } };
    refund.data = {
      ...paid.data,
      attributes: { ...paid.data.attributes, status: "refunded", refunded: true, refunded_amount: 999 } as never,
    };
    const res = await deliver(refund);
    expect(res.body).toMatchObject({ type: "subscription_payment_refunded", status: "processed" });
    const after = await account(user.id);
    expect(after).toMatchObject({ subscription: 0, debt: 400, balance: -400 + after.held });
    expect(after.ledgerSum).toBe(after.balance);
    const payment = await (await db()).payment.findFirstOrThrow({ where: { userId: user.id, kind: "plan" } });
    expect(payment).toMatchObject({ status: "refunded", credits: 1000, creditsTakenBack: 1000 });
  });

  it("unknown refund events for a plan's order are acknowledged and take nothing (the invoice carries the refund)", async () => {
    const { user } = await fresh();
    const order = orderEvent({ id: `ord-plan-${user.id}`, userId: user.id, variantId: "local-basic-monthly" });
    const res = await deliver(refundEvent(order, 499));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("ignored");
  });

  it("a refund racing 16 charges on the embedded database: the pack's credits leave once, split between unspent and debt", async () => {
    await refundRacingCharges({ charges: 16, tag: "pglite" });
  });

  it("receipts: 401 without a session, 403 for an organisation's plain member, the owner sees the wallet's payments", async () => {
    expect((await call(receipts.GET, { path: "/api/payments/receipts" })).status).toBe(401);
    const { orgId, owner, member } = await team();
    const refused = await call(receipts.GET, { path: "/api/payments/receipts", cookie: member.cookie, headers: actingAs(orgId) });
    expect(refused.status).toBe(403);
    const seen = await call(receipts.GET, { path: "/api/payments/receipts", cookie: owner.cookie, headers: actingAs(orgId) });
    expect(seen.status).toBe(200);
    expect(seen.body).toEqual({ payments: [] });
  });

  it("the simulator's refund: 400 for an unknown amount, 404 for a forged or foreign token, 409 once refunded in full", async () => {
    const { user, order: id } = await fresh();
    await buyPack(user.id, id);
    const mine = await call(receipts.GET, { path: "/api/payments/receipts", cookie: (await signInAgain(user.email)).cookie });
    const token = new URL(mine.body.payments[0].receiptUrl, "http://x").searchParams.get("token") as string;
    const refund = (body: unknown) => call(simulatorRefund.POST, { path: "/api/simulator/refund", body });
    expect((await refund({ token, amount: "most" })).status).toBe(400);
    expect((await refund({ token: `${token}x`, amount: "full" })).status).toBe(404);
    expect((await refund({ token: "not-a-token", amount: "full" })).status).toBe(404);
    const half = await refund({ token, amount: "half" });
    expect(half.status).toBe(200);
    expect(half.body.message).toBe("Partial refund delivered");
    expect((await refund({ token, amount: "full" })).body.message).toBe("Refunded in full");
    const again = await refund({ token, amount: "full" });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/already refunded in full/);
    const payment = await (await db()).payment.findFirstOrThrow({ where: { userId: user.id } });
    expect(payment).toMatchObject({ status: "refunded", creditsTakenBack: 500 });
  });
});
