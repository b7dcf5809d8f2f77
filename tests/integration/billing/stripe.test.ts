import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as creditsCheckout from "@/app/api/credits/checkout/route";
import * as cancel from "@/app/api/payments/cancel-subscription/route";
import * as changePlan from "@/app/api/payments/change-plan/route";
import * as createCheckout from "@/app/api/payments/create-checkout/route";
import * as portalSession from "@/app/api/payments/create-portal-session/route";
import * as receipts from "@/app/api/payments/receipts/route";
import * as subscription from "@/app/api/payments/subscription/route";
import * as stripeWebhook from "@/app/api/webhooks/stripe/route";
import { syncBilling } from "@/lib/billing/sync-billing";
import { reserveCredits } from "@/lib/credits";
import { closeDb, db } from "@/lib/db/client";
import { call, signIn } from "@/tests/helpers/http";
import { balanceOf, startStripeKit, STRIPE_TEST_SECRET, type StripeKit } from "./stripe-kit";

/**
 * Stripe as the payment provider, end to end: our routes call the official package, which talks to
 * the local Stripe simulator over HTTP; the simulator pays checkouts and sends webhooks signed as
 * Stripe signs them to /api/webhooks/stripe behind a real listener (tests/integration/billing/stripe-kit.ts).
 */
const SECRET = STRIPE_TEST_SECRET;
let kit: StripeKit;
let simulator: StripeKit["simulator"];
let stripe: Stripe;

beforeAll(async () => {
  kit = await startStripeKit();
  ({ simulator, stripe } = kit);
});

afterAll(async () => {
  await kit.close();
  await closeDb();
});

const pay = (checkoutUrl: string) => kit.pay(checkoutUrl);
const subscribedToBasic = (email: string) => kit.subscribedToBasic(email);

const lastEvents = (n: number) => simulator.events.slice(-n).map((e) => [e.event.type, e.status]);

describe("Stripe as the payment provider (official package → local Stripe simulator → signed webhooks)", () => {
  it("sells a plan: Checkout Session with the user's id, the subscription's events set tier and credits once", async () => {
    const { user, cookie, sub } = await subscribedToBasic(`stripe-plan-${Date.now()}@example.com`);
    expect(sub).toMatchObject({ provider: "stripe", tier: "basic", status: "active", variantId: "local-basic-monthly" });
    expect(sub.providerSubscriptionId).toMatch(/^sub_/);
    expect(sub.providerCustomerId).toMatch(/^cus_/);
    expect(lastEvents(3)).toEqual([
      ["checkout.session.completed", 200],
      ["customer.subscription.created", 200],
      ["invoice.paid", 200],
    ]);
    const state = await call(subscription.GET, { path: "/api/payments/subscription", cookie });
    expect(state.status).toBe(200);
    expect(state.body.subscription).toMatchObject({ status: "active", variantId: "local-basic-monthly", paymentFailed: false });
    const balance = await balanceOf(user.id);
    expect(balance.subscription).toBe(1000);
    expect(balance.ledger).toBe(balance.total);
    const list = await call(receipts.GET, { path: "/api/payments/receipts", cookie });
    expect(list.status).toBe(200);
    expect(list.body.payments[0]).toMatchObject({ kind: "plan", amount: 999, status: "paid" });
    expect(list.body.payments[0].receiptUrl).toMatch(new RegExp(`^${simulator.url}/invoices/in_`));
  });

  it("sells a credit pack, records its receipt, and takes credits back on partial and full refunds (debt for what was spent)", async () => {
    const { user, cookie } = await subscribedToBasic(`stripe-pack-${Date.now()}@example.com`);
    await (await db()).user.update({ where: { id: user.id }, data: { bonusCreditsAutoUse: true } });
    const res = await call(creditsCheckout.POST, { path: "/api/credits/checkout", cookie, body: { variantId: "local-bonus-basic-500" } });
    expect(res.status).toBe(200);
    await pay(res.body.checkoutUrl);
    expect(lastEvents(3).map(([type]) => type)).toEqual(["payment_intent.succeeded", "charge.succeeded", "checkout.session.completed"]);
    let balance = await balanceOf(user.id);
    expect(balance).toMatchObject({ subscription: 1000, held: 500, debt: 0 });
    const prisma = await db();
    const receipt = await prisma.payment.findFirstOrThrow({ where: { userId: user.id, kind: "pack" } });
    expect(receipt).toMatchObject({ provider: "stripe", amount: 499, credits: 500, status: "paid" });
    expect(receipt.providerPaymentId).toMatch(/^pi_/);
    expect(receipt.receiptUrl).toBe(`${simulator.url}/receipts/${receipt.providerPaymentId}`);

    // About half the pack refunded through Stripe's API: floor(500 × 249 ÷ 499) = 249 credits taken back.
    await stripe.refunds.create({ payment_intent: receipt.providerPaymentId, amount: 249 });
    balance = await balanceOf(user.id);
    expect(balance.held).toBe(251);
    expect(balance.ledger).toBe(balance.total);
    expect((await prisma.payment.findUniqueOrThrow({ where: { id: receipt.id } })).status).toBe("partially_refunded");

    // Spend everything, then refund the rest: what was spent of the pack becomes a debt that blocks charging.
    await reserveCredits({ userId: user.id, amount: 1251, operation: "chat" });
    await stripe.refunds.create({ payment_intent: receipt.providerPaymentId });
    balance = await balanceOf(user.id);
    expect(balance.debt).toBe(251);
    expect(balance.total).toBe(-251);
    expect(balance.ledger).toBe(balance.total);
    expect((await prisma.payment.findUniqueOrThrow({ where: { id: receipt.id } })).status).toBe("refunded");
    await expect(reserveCredits({ userId: user.id, amount: 1, operation: "chat" })).rejects.toMatchObject({ code: "insufficient_credits" });
  });

  it("refunds a subscription invoice through Stripe's invoice payments: the allocation is taken back", async () => {
    const { user } = await subscribedToBasic(`stripe-invoice-refund-${Date.now()}@example.com`);
    const prisma = await db();
    const invoice = await prisma.payment.findFirstOrThrow({ where: { userId: user.id, kind: "plan" } });
    expect(invoice.providerPaymentId).toMatch(/^in_/);
    const links = await stripe.invoicePayments.list({ invoice: invoice.providerPaymentId });
    const paymentIntent = (links.data[0].payment as { payment_intent: string }).payment_intent;
    await stripe.refunds.create({ payment_intent: paymentIntent });
    const balance = await balanceOf(user.id);
    expect(balance.subscription).toBe(0);
    expect((await prisma.payment.findUniqueOrThrow({ where: { id: invoice.id } })).status).toBe("refunded");
  });

  it("renews, fails a renewal, changes plan, cancels and opens the billing portal through Stripe", async () => {
    const { user, cookie, sub } = await subscribedToBasic(`stripe-life-${Date.now()}@example.com`);
    const prisma = await db();
    await reserveCredits({ userId: user.id, amount: 300, operation: "chat" });

    // Stripe's events carry whole seconds: a renewal's failure comes a period after the first payment, not in its second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await fetch(`${simulator.url}/_simulator/subscriptions/${sub.providerSubscriptionId}/fail`, { method: "POST" });
    let row = await prisma.subscription.findUniqueOrThrow({ where: { id: sub.id } });
    expect(row.status).toBe("past_due");
    expect(row.paymentFailedAt).not.toBeNull();

    await fetch(`${simulator.url}/_simulator/subscriptions/${sub.providerSubscriptionId}/renew`, { method: "POST" });
    row = await prisma.subscription.findUniqueOrThrow({ where: { id: sub.id } });
    expect(row.status).toBe("active");
    expect(row.paymentFailedAt).toBeNull();
    expect((await balanceOf(user.id)).subscription).toBe(1000); // the new period's allocation

    const changed = await call(changePlan.POST, { path: "/api/payments/change-plan", cookie, body: { newVariantId: "local-pro-monthly" } });
    expect(changed.status).toBe(200);
    row = await prisma.subscription.findUniqueOrThrow({ where: { id: sub.id } });
    expect(row).toMatchObject({ tier: "pro", variantId: "local-pro-monthly" });

    const cancelled = await call(cancel.POST, { path: "/api/payments/cancel-subscription", cookie, body: {} });
    expect(cancelled.status).toBe(200);
    row = await prisma.subscription.findUniqueOrThrow({ where: { id: sub.id } });
    expect(row.status).toBe("cancelled");
    expect(row.endsAt).not.toBeNull();

    const portal = await call(portalSession.POST, { path: "/api/payments/create-portal-session", cookie, body: {} });
    expect(portal.status).toBe(200);
    const url = String(portal.body.url ?? portal.body.portalUrl);
    expect(url).toMatch(new RegExp(`^${simulator.url}/portal/bps_`));
    expect(await (await fetch(url)).text()).toContain("cancels at period end");
  });
});

describe("disputes (charge.dispute.created / closed)", () => {
  const dispute = (paymentIntent: string, status?: string) =>
    fetch(`${simulator.url}/_simulator/disputes`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ payment_intent: paymentIntent, ...(status ? { status } : {}) }),
    });

  async function packBought(label: string) {
    const { user, cookie } = await subscribedToBasic(`stripe-dispute-${label}-${Date.now()}@example.com`);
    await (await db()).user.update({ where: { id: user.id }, data: { bonusCreditsAutoUse: true } });
    const res = await call(creditsCheckout.POST, { path: "/api/credits/checkout", cookie, body: { variantId: "local-bonus-basic-500" } });
    await pay(res.body.checkoutUrl);
    const receipt = await (await db()).payment.findFirstOrThrow({ where: { userId: user.id, kind: "pack" } });
    return { user, receipt };
  }

  it("an open dispute freezes the pack's unspent credits; won gives them back; replays change nothing", async () => {
    const { user, receipt } = await packBought("won");
    await reserveCredits({ userId: user.id, amount: 1100, operation: "chat" }); // 1000 subscription + 100 of the pack
    expect(await balanceOf(user.id)).toMatchObject({ held: 400, total: 400 });

    expect((await dispute(receipt.providerPaymentId)).status).toBe(200);
    const prisma = await db();
    let row = await prisma.payment.findUniqueOrThrow({ where: { id: receipt.id } });
    expect(row).toMatchObject({ status: "disputed", disputeStatus: "open", creditsHeld: 400, disputedAmount: 499 });
    let balance = await balanceOf(user.id);
    expect(balance).toMatchObject({ held: 0, debt: 0, total: 0 });
    expect(balance.ledger).toBe(balance.total);

    // The same event again: nothing frozen twice.
    const opened = simulator.events.findLast((e) => e.event.type === "charge.dispute.created")!;
    const payload = JSON.stringify({ ...opened.event, id: `${opened.event.id}_replayed` });
    await call(stripeWebhook.POST, {
      path: "/api/webhooks/stripe",
      rawBody: payload,
      headers: {
        "content-type": "application/json",
        "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET }),
      },
    });
    expect((await balanceOf(user.id)).total).toBe(0);

    expect((await dispute(receipt.providerPaymentId, "won")).status).toBe(200);
    row = await prisma.payment.findUniqueOrThrow({ where: { id: receipt.id } });
    expect(row).toMatchObject({ status: "paid", disputeStatus: "won", creditsHeld: 0 });
    balance = await balanceOf(user.id);
    expect(balance).toMatchObject({ held: 400, debt: 0, total: 400 });
    expect(balance.ledger).toBe(balance.total);
  });

  it("a lost dispute keeps the frozen credits and takes back the rest as a refund: what was spent becomes debt", async () => {
    const { user, receipt } = await packBought("lost");
    await reserveCredits({ userId: user.id, amount: 1100, operation: "chat" });
    await dispute(receipt.providerPaymentId);
    await dispute(receipt.providerPaymentId, "lost");
    const prisma = await db();
    const row = await prisma.payment.findUniqueOrThrow({ where: { id: receipt.id } });
    expect(row).toMatchObject({ status: "charged_back", disputeStatus: "lost", creditsTakenBack: 500 });
    const balance = await balanceOf(user.id);
    expect(balance).toMatchObject({ held: 0, debt: 100, total: -100 });
    expect(balance.ledger).toBe(balance.total);
    await expect(reserveCredits({ userId: user.id, amount: 1, operation: "chat" })).rejects.toMatchObject({ code: "insufficient_credits" });
  });
});

describe("reconciliation with Stripe (npm run billing:sync)", () => {
  it("repairs what lost webhooks missed: the subscription from Stripe's list, the pack from its completed checkout; a second run changes nothing", async () => {
    const email = `stripe-sync-${Date.now()}@example.com`;
    const { user, cookie } = await signIn(email);
    kit.setWebhooksLost(true);
    try {
      const res = await call(createCheckout.POST, {
        path: "/api/payments/create-checkout",
        cookie,
        body: { variantId: "local-basic-monthly" },
      });
      await pay(res.body.checkoutUrl);
      const pack = await stripe.checkout.sessions.create({
        mode: "payment",
        line_items: [{ price: "local-bonus-basic-500", quantity: 1 }],
        success_url: "http://localhost:3000/done",
        customer_email: email,
        metadata: { price_id: "local-bonus-basic-500" },
      });
      await pay(pack.url!);
    } finally {
      kit.setWebhooksLost(false);
    }
    const prisma = await db();
    expect(await prisma.subscription.count({ where: { userId: user.id } })).toBe(0);

    const report = await syncBilling();
    expect(report.provider).toBe("stripe");
    expect(report.subscriptions.repaired).toBeGreaterThanOrEqual(1);
    expect(report.orders.granted).toBe(1);
    expect(await prisma.subscription.findFirstOrThrow({ where: { userId: user.id } })).toMatchObject({
      provider: "stripe",
      tier: "basic",
      status: "active",
    });
    expect(await prisma.bonusPurchase.findFirstOrThrow({ where: { userId: user.id } })).toMatchObject({ credits: 500, remaining: 500 });

    const again = await syncBilling();
    expect(again.orders.granted).toBe(0);
    expect(await prisma.bonusPurchase.count({ where: { userId: user.id } })).toBe(1);
  });
});

describe("the billing portal with Stripe", () => {
  it("opens for an account that bought a pack only (its customer's saved card), 404 for one that never paid", async () => {
    const { user, cookie } = await signIn(`stripe-portal-${Date.now()}@example.com`);
    const none = await call(portalSession.POST, { path: "/api/payments/create-portal-session", cookie, body: {} });
    expect(none.status).toBe(404);
    const pack = await stripe.checkout.sessions.create({
      mode: "payment",
      line_items: [{ price: "local-bonus-basic-500", quantity: 1 }],
      success_url: "http://localhost:3000/done",
      customer_email: user.email!,
      metadata: { user_id: user.id, price_id: "local-bonus-basic-500" },
      payment_intent_data: { metadata: { user_id: user.id, price_id: "local-bonus-basic-500" }, setup_future_usage: "off_session" },
    });
    await pay(pack.url!);
    const portal = await call(portalSession.POST, { path: "/api/payments/create-portal-session", cookie, body: {} });
    expect(portal.status).toBe(200);
    expect(String(portal.body.url)).toMatch(new RegExp(`^${simulator.url}/portal/bps_`));
  });
});

describe("POST /api/webhooks/stripe", () => {
  const deliver = (payload: string, header: string | null) =>
    call(stripeWebhook.POST, {
      path: "/api/webhooks/stripe",
      rawBody: payload,
      headers: { "content-type": "application/json", ...(header ? { "stripe-signature": header } : {}) },
    });
  const signed = (payload: string, secret = SECRET, timestamp?: number) =>
    Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
  const count = async () => (await db()).webhookDelivery.count();

  it("answers 400 to a missing, wrong or stale signature and records nothing", async () => {
    const payload = JSON.stringify({
      id: "evt_forged",
      object: "event",
      type: "invoice.paid",
      created: Math.floor(Date.now() / 1000),
      data: { object: {} },
    });
    const before = await count();
    for (const header of [
      null,
      "t=1,v1=deadbeef",
      signed(payload, "whsec_wrong"),
      signed(payload, SECRET, Math.floor(Date.now() / 1000) - 3600),
    ]) {
      const res = await deliver(payload, header);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/Signature verification failed/);
    }
    expect(await deliver("not json", signed("not json")).then((r) => r.status)).toBe(400);
    expect(await count()).toBe(before);
  });

  it("leaves a subscription whose first payment is not complete alone; its update to active creates it", async () => {
    const { user } = await signIn(`stripe-incomplete-${Date.now()}@example.com`);
    const now = Math.floor(Date.now() / 1000);
    const subscription = (status: string) => ({
      id: `sub_incomplete_${user.id}`,
      object: "subscription",
      customer: "cus_incomplete",
      status,
      cancel_at_period_end: false,
      created: now,
      metadata: { user_id: user.id },
      items: { data: [{ id: "si_1", price: { id: "local-basic-monthly" }, current_period_end: now + 86400 * 30 }] },
    });
    const send = async (id: string, type: string, status: string, created: number) => {
      const payload = JSON.stringify({ id, object: "event", type, created, data: { object: subscription(status) } });
      return deliver(payload, signed(payload));
    };
    const first = await send(`evt_inc_${user.id}`, "customer.subscription.created", "incomplete", now);
    expect(first.body).toMatchObject({ status: "ignored" });
    const prisma = await db();
    expect(await prisma.subscription.count({ where: { userId: user.id } })).toBe(0);
    const active = await send(`evt_act_${user.id}`, "customer.subscription.updated", "active", now + 1);
    expect(active.body).toMatchObject({ status: "processed" });
    expect(await prisma.subscription.findFirstOrThrow({ where: { userId: user.id } })).toMatchObject({ status: "active", tier: "basic" });
  });

  it("keeps an event for a customer nobody here is (yet) as pending, recorded for the console, not an error", async () => {
    const event = {
      id: `evt_stranger_${Date.now()}`,
      object: "event",
      type: "customer.subscription.created",
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: `sub_stranger_${Date.now()}`,
          object: "subscription",
          customer: "cus_nobody_knows",
          status: "active",
          cancel_at_period_end: false,
          created: Math.floor(Date.now() / 1000),
          metadata: {},
          items: {
            data: [{ id: "si_1", price: { id: "local-basic-monthly" }, current_period_end: Math.floor(Date.now() / 1000) + 86400 * 30 }],
          },
        },
      },
    };
    const payload = JSON.stringify(event);
    const res = await deliver(payload, signed(payload));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ received: true, status: "pending" });
    const row = await (await db()).webhookDelivery.findFirstOrThrow({ where: { deliveryId: event.id } });
    expect(row).toMatchObject({ source: "payment", eventType: "subscription_created", status: "pending" });
  });

  it("acknowledges an event it does not act on, and a redelivered or older event changes nothing twice", async () => {
    const unknown = JSON.stringify({
      id: `evt_unknown_${Date.now()}`,
      object: "event",
      type: "customer.tax_id.created",
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: "txi_1" } },
    });
    const ignored = await deliver(unknown, signed(unknown));
    expect(ignored.status).toBe(200);
    expect(ignored.body).toMatchObject({ received: true, status: "ignored" });

    const { sub } = await subscribedToBasic(`stripe-replay-${Date.now()}@example.com`);
    const created = simulator.events.find(
      (e) =>
        e.event.type === "customer.subscription.created" &&
        (e.event.data as { object: { id: string } }).object.id === sub.providerSubscriptionId,
    )!;
    const payload = JSON.stringify(created.event);
    const again = await deliver(payload, signed(payload));
    expect(again.body).toMatchObject({ duplicate: true });

    // A newer cancellation, then the older creation snapshot under a new event id: the newer state stays.
    await stripe.subscriptions.update(sub.providerSubscriptionId, { cancel_at_period_end: true });
    const older = JSON.stringify({ ...created.event, id: `evt_reordered_${Date.now()}`, created: Number(created.event.created) - 60 });
    const stale = await deliver(older, signed(older));
    expect(stale.status).toBe(200);
    const row = await (await db()).subscription.findUniqueOrThrow({ where: { id: sub.id } });
    expect(row.status).toBe("cancelled");
  });
});
