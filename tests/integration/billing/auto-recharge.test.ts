import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as autoRecharge from "@/app/api/credits/auto-recharge/route";
import * as receipts from "@/app/api/payments/receipts/route";
import { runDueAutoRecharges } from "@/lib/billing/auto-recharge/run-auto-recharges";
import { reserveCredits } from "@/lib/credits";
import { closeDb, db } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { rechargeRacingCharges } from "./auto-recharge-race";
import { balanceOf, startStripeKit, type StripeKit } from "./stripe-kit";

let kit: StripeKit;
beforeAll(async () => {
  kit = await startStripeKit();
});
afterAll(async () => {
  await kit.close();
  await closeDb();
});

const put = (cookie: string, body: unknown) => call(autoRecharge.PUT, { method: "PUT", path: "/api/credits/auto-recharge", cookie, body });
const get = (cookie: string) => call(autoRecharge.GET, { path: "/api/credits/auto-recharge", cookie });
const settings = (over: Record<string, unknown> = {}) => ({
  enabled: true,
  threshold: 600,
  variantId: "local-bonus-basic-500",
  monthlyMaxCount: 2,
  monthlyMaxAmount: 2_000,
  ...over,
});

async function customerOf(userId: string) {
  return (await (await db()).payment.findFirstOrThrow({ where: { userId, providerCustomerId: { not: null } } })).providerCustomerId!;
}

describe("auto-recharge (Stripe): a top-up when a charge leaves the balance under the threshold", () => {
  it("refuses what it cannot do: no session 401, a bad body 400 naming the field, a pack of another tier 400, no saved card 409", async () => {
    expect((await call(autoRecharge.GET, { path: "/api/credits/auto-recharge" })).status).toBe(401);
    const { cookie } = await signIn(`recharge-refused-${Date.now()}@example.com`);
    const first = await get(cookie);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ available: false, settings: null, card: null });
    expect(first.body.unavailableReason).toMatch(/No saved card/);

    const bad = await put(cookie, settings({ threshold: -1 }));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/threshold/);
    expect((await put(cookie, { ...settings(), extra: 1 })).status).toBe(400);
    const freeTier = await put(cookie, settings());
    expect(freeTier.status).toBe(400);
    expect(freeTier.body.error).toMatch(/variantId: the Free tier has no bonus packages/);

    const { cookie: subscribed } = await kit.subscribedToBasic(`recharge-nocard-${Date.now()}@example.com`);
    const tooLittle = await put(subscribed, settings({ monthlyMaxAmount: 100 }));
    expect(tooLittle.status).toBe(400);
    expect(tooLittle.body.error).toMatch(/monthlyMaxAmount: 100 cents is less than one top-up \(499 cents\)/);
    // The subscription's card is saved at Stripe: auto-recharge may use it.
    const on = await put(subscribed, settings());
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({
      available: true,
      card: "visa ending 4242",
      settings: { enabled: true, threshold: 600, credits: 500, amount: 499 },
    });
  });

  it("claims one top-up per crossing, pays it off the request path, grants the pack once with its receipt, and holds the monthly count", async () => {
    const { user, cookie } = await kit.subscribedToBasic(`recharge-flow-${Date.now()}@example.com`);
    await (await db()).user.update({ where: { id: user.id }, data: { bonusCreditsAutoUse: true } });
    expect((await put(cookie, settings())).status).toBe(200);
    const prisma = await db();

    // 1,000 credits: 300 leave them at 700 (no claim), 150 more cross 600: one claim, and no second while it is in flight.
    await reserveCredits({ userId: user.id, amount: 300, operation: "chat" });
    expect(await prisma.autoRecharge.count({ where: { accountId: user.id } })).toBe(0);
    await reserveCredits({ userId: user.id, amount: 150, operation: "chat" });
    await reserveCredits({ userId: user.id, amount: 50, operation: "chat" });
    const claimed = await prisma.autoRecharge.findMany({ where: { accountId: user.id } });
    expect(claimed).toHaveLength(1);
    expect(claimed[0]).toMatchObject({ status: "claimed", credits: 500, amount: 499, balanceAtClaim: 550 });

    expect(await runDueAutoRecharges()).toMatchObject({ paid: 1, failed: 0 });
    expect(await runDueAutoRecharges()).toMatchObject({ paid: 0 });
    expect((await balanceOf(user.id)).total).toBe(1000);
    const receipt = await call(receipts.GET, { path: "/api/payments/receipts", cookie });
    // Its receipt (paid in the plan's second, it may list before or after the plan's).
    expect(receipt.body.payments.filter((p: { kind: string }) => p.kind === "pack")).toEqual([
      expect.objectContaining({ kind: "pack", amount: 499, credits: 500, status: "paid" }),
    ]);

    // A second crossing (the pack's credits are spent too): the second top-up of the month.
    await reserveCredits({ userId: user.id, amount: 500, operation: "chat" });
    await runDueAutoRecharges();
    // A third crossing: the month's count (2) is reached, nothing is claimed.
    await reserveCredits({ userId: user.id, amount: 500, operation: "chat" });
    expect(await runDueAutoRecharges()).toMatchObject({ paid: 0 });
    const all = await prisma.autoRecharge.findMany({ where: { accountId: user.id }, orderBy: { createdAt: "asc" } });
    expect(all.map((r) => r.status)).toEqual(["succeeded", "succeeded"]);
    const view = await get(cookie);
    expect(view.body.thisMonth).toEqual({ count: 2, amount: 998 });
    const balance = await balanceOf(user.id);
    expect(balance.ledger).toBe(balance.total);
  });

  it("saved on while the balance is already under the threshold: one top-up claimed at once, and no second one while it is in flight", async () => {
    const { user, cookie } = await kit.subscribedToBasic(`recharge-at-save-${Date.now()}@example.com`);
    const prisma = await db();
    // A pack held but not spendable (auto-use off) counts, as in a charge's balance_after: 1,500 is not under 1,490.
    await kit.buyPack(cookie);
    expect((await put(cookie, settings({ threshold: 1490 }))).status).toBe(200);
    expect(await prisma.autoRecharge.count({ where: { accountId: user.id } })).toBe(0);
    // Off: saving claims nothing, whatever the balance.
    expect((await put(cookie, settings({ enabled: false, threshold: 1600 }))).status).toBe(200);
    expect(await prisma.autoRecharge.count({ where: { accountId: user.id } })).toBe(0);
    // On, with 1,500 under 1,600: no charge will cross it, so the top-up is claimed with the save.
    const on = await put(cookie, settings({ threshold: 1600 }));
    expect(on.status).toBe(200);
    expect(on.body.recent).toEqual([expect.objectContaining({ status: "claimed", credits: 500 })]);
    expect((await put(cookie, settings({ threshold: 1600 }))).status).toBe(200);
    expect(await prisma.autoRecharge.count({ where: { accountId: user.id } })).toBe(1);
    expect(await runDueAutoRecharges()).toMatchObject({ paid: 1 });
    expect((await balanceOf(user.id)).total).toBe(2000);
    // Above the threshold now: saving again claims nothing.
    expect((await put(cookie, settings({ threshold: 1600 }))).status).toBe(200);
    expect(await prisma.autoRecharge.count({ where: { accountId: user.id } })).toBe(1);
  });

  it("a declined card pauses auto-recharge, tells the owners (event and email), claims nothing more until it is saved on again", async () => {
    const { user, cookie } = await kit.subscribedToBasic(`recharge-declined-${Date.now()}@example.com`);
    expect((await put(cookie, settings())).status).toBe(200);
    await kit.control(`customers/${await customerOf(user.id)}/card`, { behaviour: "decline" });
    await reserveCredits({ userId: user.id, amount: 450, operation: "chat" });
    expect(await runDueAutoRecharges()).toMatchObject({ paid: 0, failed: 1 });
    const prisma = await db();
    const view = await get(cookie);
    expect(view.body.settings.pausedReason).toMatch(/Your card was declined\. \(card_declined\)/);
    expect(view.body.recent[0]).toMatchObject({ status: "failed" });
    const event = await prisma.outboundEvent.findFirstOrThrow({
      where: { accountId: user.id, type: "credits.auto_recharge_failed" },
      include: { deliveries: true },
    });
    expect(event.deliveries.map((d) => d.emailTo)).toEqual([user.email]);
    expect((await balanceOf(user.id)).total).toBe(550);

    await reserveCredits({ userId: user.id, amount: 50, operation: "chat" });
    expect(await prisma.autoRecharge.count({ where: { accountId: user.id } })).toBe(1);

    // A new card (the simulator's card works again), saved on: the next crossing tops up.
    await kit.control(`customers/${await customerOf(user.id)}/card`, { behaviour: "ok" });
    const again = await put(cookie, settings());
    expect(again.body.settings.pausedAt).toBeNull();
    await reserveCredits({ userId: user.id, amount: 50, operation: "chat" });
    expect(await runDueAutoRecharges()).toMatchObject({ paid: 1 });
    expect((await balanceOf(user.id)).total).toBe(950);
  });

  it("answers charges only: a refund that takes the balance under the threshold buys nothing; the next charge does", async () => {
    const { user, cookie } = await kit.subscribedToBasic(`recharge-refund-${Date.now()}@example.com`);
    await (await db()).user.update({ where: { id: user.id }, data: { bonusCreditsAutoUse: true } });
    await kit.buyPack(cookie);
    expect((await put(cookie, settings({ threshold: 1200 }))).status).toBe(200);
    await reserveCredits({ userId: user.id, amount: 250, operation: "chat" }); // 1,250: above the threshold
    const prisma = await db();
    const pack = await prisma.payment.findFirstOrThrow({ where: { userId: user.id, kind: "pack" } });
    await kit.stripe.refunds.create({ payment_intent: pack.providerPaymentId }); // 500 taken back: 750
    expect((await balanceOf(user.id)).total).toBe(750);
    expect(await prisma.autoRecharge.count({ where: { accountId: user.id } })).toBe(0);
    await reserveCredits({ userId: user.id, amount: 15, operation: "chat" });
    expect(await prisma.autoRecharge.count({ where: { accountId: user.id } })).toBe(1);
  });

  it("a bank that asks for the cardholder (authentication_required) fails the same way", async () => {
    const { user, cookie } = await kit.subscribedToBasic(`recharge-3ds-${Date.now()}@example.com`);
    expect((await put(cookie, settings())).status).toBe(200);
    await kit.control(`customers/${await customerOf(user.id)}/card`, { behaviour: "authenticate" });
    await reserveCredits({ userId: user.id, amount: 450, operation: "chat" });
    expect(await runDueAutoRecharges()).toMatchObject({ failed: 1 });
    expect((await get(cookie)).body.settings.pausedReason).toMatch(/authentication_required/);
  });

  it("32 concurrent charges crossing the threshold and 3 payment runs at once: one top-up, paid once", async () => {
    await rechargeRacingCharges(kit, { charges: 32, instances: 3, tag: "pglite" });
  });
});

describe("auto-recharge with Lemon Squeezy", () => {
  it("is refused with the reason (no off-session charge there)", async () => {
    const restore = setEnv({ PAYMENT_PROVIDER: undefined });
    try {
      const { user, cookie } = await signIn(`recharge-ls-${Date.now()}@example.com`);
      await (await db()).user.update({ where: { id: user.id }, data: { tier: "basic" } });
      const view = await get(cookie);
      expect(view.body.available).toBe(false);
      expect(view.body.unavailableReason).toMatch(/Lemon Squeezy cannot charge a saved card/);
      const on = await put(cookie, settings());
      expect(on.status).toBe(409);
      expect(on.body.error).toMatch(/Auto-recharge needs Stripe/);
    } finally {
      restore();
    }
  });
});
