import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as creditsCheckout } from "@/app/api/credits/checkout/route";
import { POST as checkTrials } from "@/app/api/cron/check-trials/route";
import { POST as cancel } from "@/app/api/payments/cancel-subscription/route";
import { POST as changePlan } from "@/app/api/payments/change-plan/route";
import { POST as createCheckout } from "@/app/api/payments/create-checkout/route";
import { POST as portalSession } from "@/app/api/payments/create-portal-session/route";
import { GET as subscription } from "@/app/api/payments/subscription/route";
import { POST as completeCheckout } from "@/app/api/simulator/checkout/route";
import { LemonSqueezyClient } from "@/lib/billing/payment-provider/lemonsqueezy-client";
import { resumeSubscription } from "@/lib/billing/subscriptions/resume-subscription";
import { syncBilling } from "@/lib/billing/sync-billing";
import { closeDb, db } from "@/lib/db/client";
import { deleteUser } from "@/lib/account/delete-user";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { LEMONSQUEEZY_TEST_PRICING, startLemonSqueezyStub, type LemonSqueezyStub } from "@/tests/helpers/lemonsqueezy-stub";
import { reserveCredits } from "@/lib/credits";
import { deliver, invoiceEvent, subscriptionEvent } from "./fixtures";

const PRICING = LEMONSQUEEZY_TEST_PRICING;

let stub: LemonSqueezyStub;
let restore: () => void;

beforeAll(async () => {
  stub = await startLemonSqueezyStub({ pageSize: 2 });
  restore = setEnv({
    LEMONSQUEEZY_API_KEY: stub.apiKey,
    LEMONSQUEEZY_STORE_ID: stub.storeId,
    LEMONSQUEEZY_API_URL: stub.url,
    PRICING_CONFIG: JSON.stringify(PRICING),
  });
});

afterAll(async () => {
  restore();
  await stub.close();
  await closeDb();
});

/** A subscription that exists at the stub and was delivered to us by subscription_created. */
async function subscribed(id: string, userId: string, email: string, attrs: Record<string, unknown> = {}) {
  const sub = stub.addSubscription(id, { variant_id: 1101, user_email: email, ...attrs });
  const res = await deliver({
    ...subscriptionEvent("subscription_created", { id, userId, updatedAt: sub.attributes.updated_at }),
    data: { type: "subscriptions", id, attributes: sub.attributes },
  });
  expect(res.body.status).toBe("processed");
  return sub;
}

describe("Lemon Squeezy client against the JSON:API stub", () => {
  it("creates a checkout with variant, store, custom_data.user_id, prefilled email, redirect and discount code", async () => {
    const { user, cookie } = await signIn("ls-buyer@example.com");
    const res = await call(createCheckout, {
      path: "/api/payments/create-checkout",
      cookie,
      body: { variantId: "1101", discountCode: "SAVE10", redirectUrl: "/done" },
    });
    expect(res.status).toBe(200);
    expect(res.body.checkoutUrl).toMatch(/^https:\/\/stub\.lemonsqueezy\.test\/checkout\/custom\//);
    const sent = stub.requests.at(-1)!;
    expect(sent.method).toBe("POST");
    expect(sent.path).toBe("/v1/checkouts");
    expect(sent.headers.authorization).toBe(`Bearer ${stub.apiKey}`);
    expect(sent.headers["content-type"]).toBe("application/vnd.api+json");
    expect(sent.body.data.relationships).toEqual({
      store: { data: { type: "stores", id: stub.storeId } },
      variant: { data: { type: "variants", id: "1101" } },
    });
    expect(sent.body.data.attributes.checkout_data).toMatchObject({
      email: "ls-buyer@example.com",
      discount_code: "SAVE10",
      custom: { user_id: user.id, kind: "plan" },
    });
    expect(sent.body.data.attributes.product_options.redirect_url).toBe("http://localhost:3000/done");

    const bonus = await call(creditsCheckout, { path: "/api/credits/checkout", cookie, body: { variantId: "2001" } });
    expect(bonus.status).toBe(400); // a free user has no bonus packages
  });

  it("the simulator does not exist when Lemon Squeezy is configured", async () => {
    expect((await call(completeCheckout, { method: "POST", path: "/api/simulator/checkout", body: { id: "x" } })).status).toBe(404);
  });

  it("change plan, cancel, portal and resume go through the API; its answer is applied at once and a late webhook changes nothing", async () => {
    const { user, cookie } = await signIn("ls-sub@example.com");
    await subscribed("5001", user.id, "ls-sub@example.com");
    expect((await call(subscription, { path: "/api/payments/subscription", cookie })).body).toMatchObject({
      tier: "pro",
      subscription: { variantId: "1101" },
    });

    const changed = await call(changePlan, { path: "/api/payments/change-plan", cookie, body: { newVariantId: "1001" } });
    expect(changed.status).toBe(200);
    const patch = stub.requests.at(-1)!;
    expect(patch).toMatchObject({
      method: "PATCH",
      path: "/v1/subscriptions/5001",
      body: { data: { type: "subscriptions", id: "5001", attributes: { variant_id: 1001 } } },
    });
    expect((await call(subscription, { path: "/api/payments/subscription", cookie })).body).toMatchObject({
      tier: "basic",
      user: { downgradeCount: 1 },
    });

    const cancelled = await call(cancel, { method: "POST", path: "/api/payments/cancel-subscription", cookie });
    expect(cancelled.status).toBe(200);
    expect(stub.requests.at(-1)).toMatchObject({ method: "DELETE", path: "/v1/subscriptions/5001" });
    expect(cancelled.body.endsAt).toBe(new Date(String(stub.subscriptions.get("5001")!.attributes.renews_at)).toISOString());

    // The webhook of the earlier change arrives late: older than the state held, ignored.
    const late = await deliver(
      subscriptionEvent("subscription_updated", {
        id: "5001",
        userId: user.id,
        variantId: "1001",
        status: "active",
        updatedAt: new Date(Date.now() - 60_000),
      }),
    );
    expect(late.body.result).toMatch(/older/);
    expect((await call(subscription, { path: "/api/payments/subscription", cookie })).body.subscription.status).toBe("cancelled");

    const portal = await call(portalSession, { method: "POST", path: "/api/payments/create-portal-session", cookie });
    expect(portal.status).toBe(200);
    expect(portal.body.url).toMatch(/^https:\/\/stub\.lemonsqueezy\.test\/billing\/5001\?expires=/);

    expect(await resumeSubscription({ userId: user.id })).toEqual({ status: "active" });
    expect(stub.requests.at(-1)).toMatchObject({ method: "PATCH", body: { data: { attributes: { cancelled: false } } } });
  });

  it("provider failures answer 500 with an error body; a missing subscription at the provider is 404", async () => {
    const { user, cookie } = await signIn("ls-fail@example.com");
    stub.failNext(500);
    const res = await call(createCheckout, { path: "/api/payments/create-checkout", cookie, body: { variantId: "1101" } });
    expect(res.status).toBe(500);
    expect(res.body.error).toMatch(/Payment provider error 500/);
    stub.failNext(401);
    expect((await call(createCheckout, { path: "/api/payments/create-checkout", cookie, body: { variantId: "1101" } })).status).toBe(500);
    const down = setEnv({ LEMONSQUEEZY_API_URL: "http://127.0.0.1:9/v1" });
    try {
      const unreachable = await call(createCheckout, { path: "/api/payments/create-checkout", cookie, body: { variantId: "1101" } });
      expect(unreachable.status).toBe(500);
      expect(unreachable.body.error).toBe("Payment provider is unreachable");
    } finally {
      down();
    }
    await subscribed("5009", user.id, "ls-fail@example.com");
    stub.subscriptions.delete("5009");
    expect((await call(cancel, { method: "POST", path: "/api/payments/cancel-subscription", cookie })).status).toBe(404);
    // A failed downgrade gives the counted downgrade back.
    stub.failNext(503);
    expect((await call(changePlan, { path: "/api/payments/change-plan", cookie, body: { newVariantId: "1001" } })).status).toBe(500);
    const prisma = await db();
    expect((await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).downgradeCount).toBe(0);
  });

  it("lists every page of subscriptions and orders", async () => {
    for (const id of ["5101", "5102", "5103"]) stub.addSubscription(id, { variant_id: 1001, user_email: `${id}@example.com` });
    stub.addSubscription("other-store", { variant_id: 1001, user_email: "x@example.com", store_id: 1 });
    const client = new LemonSqueezyClient(stub.apiKey, stub.storeId, stub.url);
    const ids: string[] = [];
    for await (const s of client.listSubscriptions()) ids.push(s.id);
    expect(ids.sort()).toEqual([...stub.subscriptions.keys()].filter((k) => k !== "other-store").sort());
    expect(ids.length).toBeGreaterThan(2);
    expect(stub.requests.filter((r) => r.path.startsWith("/v1/subscriptions?")).length).toBeGreaterThan(1);
    expect(await client.getSubscription("does-not-exist")).toBeNull();
    await expect(new LemonSqueezyClient("wrong-key", stub.storeId, stub.url).getSubscription("5001")).rejects.toThrow(/401/);
  });
});

describe("account deletion", () => {
  it("cancels the user's running subscription at the provider before the rows go", async () => {
    const { user } = await signIn("ls-delete@example.com");
    await subscribed("9001", user.id, "ls-delete@example.com");
    await deleteUser(user.id);
    expect(stub.requests.at(-1)).toMatchObject({ method: "DELETE", path: "/v1/subscriptions/9001" });
    expect(stub.subscriptions.get("9001")!.attributes.status).toBe("cancelled");
    const prisma = await db();
    expect(await prisma.subscription.count({ where: { providerSubscriptionId: "9001" } })).toBe(0);
  });
});

describe("reconciliation (billing:sync) and trial checks against the provider", () => {
  it("repairs a missed webhook and grants a missed bonus order, idempotently", async () => {
    const { user } = await signIn("ls-sync@example.com");
    const sub = await subscribed("6001", user.id, "ls-sync@example.com");
    // The provider moved on (past_due) and the webhook was lost.
    sub.attributes.status = "past_due";
    sub.attributes.updated_at = new Date(Date.now() + 1000).toISOString();
    stub.addSubscription("6002", { variant_id: 1101, user_email: "nobody@example.com" });
    stub.addOrder("7001", { user_email: "LS-Sync@example.com", first_order_item: { variant_id: 2101 }, total: 1499, status: "paid" });
    stub.addOrder("7002", { user_email: "ls-sync@example.com", first_order_item: { variant_id: 1101 }, status: "paid" });

    const first = await syncBilling();
    expect(first.provider).toBe("lemonsqueezy");
    expect(first.subscriptions.repaired).toBeGreaterThanOrEqual(1);
    expect(first.orders).toMatchObject({ granted: 1, failed: 0 });
    const prisma = await db();
    // 6002 (and other tests' subscriptions of users not here) belong to nobody: reported unmatched, not created.
    const local = new Set(
      (await prisma.subscription.findMany({ select: { providerSubscriptionId: true } })).map((r) => r.providerSubscriptionId),
    );
    const orphans = [...stub.subscriptions.values()].filter((r) => String(r.attributes.store_id) === stub.storeId && !local.has(r.id));
    expect(orphans.map((r) => r.id)).toContain("6002");
    expect(first.subscriptions.unmatched).toBe(orphans.length);
    expect((await prisma.subscription.findUniqueOrThrow({ where: { providerSubscriptionId: "6001" } })).status).toBe("past_due");
    expect(await prisma.bonusPurchase.count({ where: { userId: user.id, orderId: "7001" } })).toBe(1);
    expect(await prisma.subscription.count({ where: { providerSubscriptionId: "6002" } })).toBe(0);

    const second = await syncBilling();
    expect(second.subscriptions.repaired).toBe(0);
    expect(second.orders.granted).toBe(0);
    expect(await prisma.bonusPurchase.count({ where: { userId: user.id } })).toBe(1);
  });

  it("applies a missed renewal's monthly allocation once, with the webhook's key, so the late webhook changes nothing", async () => {
    const { user } = await signIn("ls-renewal@example.com");
    await subscribed("6101", user.id, "ls-renewal@example.com");
    const prisma = await db();
    const credits = async () => (await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } })).subscriptionCredits;
    const allocation = await credits();
    expect(allocation).toBeGreaterThan(100);
    await reserveCredits({ userId: user.id, amount: 100, operation: "chat" });
    // An invoice paid before the last reset (the start) is old news: nothing to repair.
    stub.addInvoice("8100", { subscription_id: "6101", created_at: new Date(Date.now() - 86_400_000).toISOString() });
    const none = await syncBilling();
    expect(none.subscriptions.renewalsAllocated).toBe(0);
    expect(await credits()).toBe(allocation - 100);

    // The renewal payment went through at the provider; its webhook was lost.
    const paidAt = new Date(Date.now() + 1000).toISOString();
    stub.addInvoice("8101", { subscription_id: "6101", created_at: paidAt });
    stub.addInvoice("8102", { subscription_id: "6101", created_at: paidAt, billing_reason: "updated" });
    const first = await syncBilling();
    expect(first.subscriptions.renewalsAllocated).toBe(1);
    expect(first.message).toContain("1 missed renewals allocated");
    expect(await credits()).toBe(allocation);
    const resets = await prisma.creditTransaction.findMany({
      where: { userId: user.id, type: "monthly_reset" },
      orderBy: { createdAt: "asc" },
    });
    expect(resets.map((r) => r.operation)).toEqual(["initial_allocation", "subscription_start", "subscription_renewal"]);
    expect(resets.at(-1)?.amount).toBe(100);

    await reserveCredits({ userId: user.id, amount: 40, operation: "chat" });
    expect((await syncBilling()).subscriptions.renewalsAllocated).toBe(0);
    const late = await deliver(
      invoiceEvent("subscription_payment_success", { id: "8101", subscriptionId: "6101", userId: user.id, updatedAt: paidAt }),
    );
    expect(late.status).toBe(200);
    expect(await credits()).toBe(allocation - 40);
    expect(await prisma.creditTransaction.count({ where: { userId: user.id, type: "monthly_reset" } })).toBe(3);
  });

  it("check-trials asks the provider first: a converted trial is updated, a trial still on trial past its end is expired", async () => {
    const restoreMode = setEnv({ PUBLIC_PRICING_MODEL: "classic_saas" });
    try {
      const past = new Date(Date.now() - 3600_000).toISOString();
      const a = await signIn("ls-trial-a@example.com");
      const subA = await subscribed("8001", a.user.id, "ls-trial-a@example.com", { status: "on_trial", trial_ends_at: past });
      subA.attributes.status = "active";
      subA.attributes.updated_at = new Date(Date.now() + 1000).toISOString();
      const b = await signIn("ls-trial-b@example.com");
      await subscribed("8002", b.user.id, "ls-trial-b@example.com", { status: "on_trial", trial_ends_at: past });
      const res = await call(checkTrials, { method: "POST", path: "/api/cron/check-trials" });
      expect(res.body).toMatchObject({ success: true, expiredCount: 1 });
      expect(res.body.message).toMatch(/1 converted/);
      const prisma = await db();
      expect((await prisma.subscription.findUniqueOrThrow({ where: { providerSubscriptionId: "8001" } })).status).toBe("active");
      expect((await prisma.subscription.findUniqueOrThrow({ where: { providerSubscriptionId: "8002" } })).status).toBe("expired");
      expect((await prisma.user.findUniqueOrThrow({ where: { id: b.user.id } })).tier).toBe("free");
    } finally {
      restoreMode();
    }
  });
});
