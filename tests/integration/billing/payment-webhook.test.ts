import { afterAll, describe, expect, it } from "vitest";
import { GET as status } from "@/app/api/user/status/route";
import { GET as webhookGet } from "@/app/api/webhooks/payment/route";
import { DEV_PAYMENT_WEBHOOK_SECRET } from "@/lib/billing/payment-provider/signing-secret";
import { closeDb, db } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { deliver, invoiceEvent, orderEvent, sign, subscriptionEvent } from "./fixtures";

afterAll(closeDb);

async function counts() {
  const prisma = await db();
  return {
    deliveries: await prisma.webhookDelivery.count({ where: { source: "payment" } }),
    subscriptions: await prisma.subscription.count(),
    purchases: await prisma.bonusPurchase.count(),
  };
}

async function sub(id: string) {
  return (await db()).subscription.findUniqueOrThrow({ where: { providerSubscriptionId: id } });
}

describe("payment webhook signature (verified on the raw body before anything else)", () => {
  it("refuses a missing header, a malformed one, a wrong secret and a tampered body with 401 and changes nothing", async () => {
    const { user } = await signIn("sig@example.com");
    const event = subscriptionEvent("subscription_created", { id: "sub-sig", userId: user.id, updatedAt: "2026-11-01T00:00:00Z" });
    const raw = JSON.stringify(event);
    const before = await counts();
    const cases = [
      await deliver(event, { signature: null }),
      await deliver(event, { signature: "not-hex" }),
      await deliver(event, { signature: "" }),
      await deliver(event, { signature: sign(raw).slice(0, 63) }),
      await deliver(event, { secret: "another-secret" }),
      await deliver(event, { raw: raw.replace("local-basic-monthly", "local-pro-monthly"), signature: sign(raw) }),
      await deliver(event, { raw: raw + " ", signature: sign(raw) }),
    ];
    for (const res of cases) {
      expect(res.status).toBe(401);
      expect(res.body.error).toMatch(/Signature verification failed/);
    }
    expect(await counts()).toEqual(before);
    // The same body correctly signed is accepted.
    expect((await deliver(event)).status).toBe(200);
    expect((await counts()).subscriptions).toBe(before.subscriptions + 1);
  });

  it("answers 401 when no secret is configured in production (no fallback secret)", async () => {
    // Payments off (a production that starts without a payment provider): a delivery is still verified, and refused.
    const restore = setEnv({
      APP_ENV: "production",
      NEXTAUTH_SECRET: "x".repeat(40),
      CRON_SECRET: "cron",
      PAYMENT_WEBHOOK_SECRET: undefined,
      PAYMENT_SIMULATOR_ENABLED: undefined,
      PAYMENTS_ENABLED: "false",
    });
    try {
      const event = orderEvent({ id: "ord-prod", variantId: "local-bonus-basic-500" });
      const res = await deliver(event, { secret: DEV_PAYMENT_WEBHOOK_SECRET });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatch(/not configured/);
    } finally {
      restore();
    }
  });

  it("outside production without PAYMENT_WEBHOOK_SECRET, verifies with the documented development secret", async () => {
    const restore = setEnv({ APP_ENV: "development", PAYMENT_WEBHOOK_SECRET: undefined });
    try {
      const event = { meta: { event_name: "license_key_created" }, data: { id: "dev-1", type: "license-keys", attributes: {} } };
      expect((await deliver(event, { secret: DEV_PAYMENT_WEBHOOK_SECRET })).status).toBe(200);
      expect((await deliver(event, { secret: "test-payment-webhook-secret" })).status).toBe(401);
    } finally {
      restore();
    }
  });

  it("answers 400 for a signed body that is not a valid event, 405 for GET", async () => {
    expect((await deliver(undefined, { raw: "not json" })).status).toBe(400);
    const missing = await deliver({
      meta: { event_name: "subscription_created" },
      data: { id: "x", type: "subscriptions", attributes: { status: "active" } },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/variant_id/);
    expect((await call(webhookGet, { path: "/api/webhooks/payment" })).status).toBe(405);
  });
});

describe("payment events", () => {
  it("subscription_created creates the record, sets tier and the monthly allocation; the user status follows", async () => {
    const { user, cookie } = await signIn("created@example.com");
    const res = await deliver(
      subscriptionEvent("subscription_created", {
        id: "sub-c",
        userId: user.id,
        variantId: "local-pro-yearly",
        updatedAt: "2026-11-01T00:00:00Z",
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ received: true, type: "subscription_created", duplicate: false, status: "processed" });
    const row = await sub("sub-c");
    expect(row).toMatchObject({ status: "active", tier: "pro", billingPeriod: "yearly", userId: user.id });
    const prisma = await db();
    const balance = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
    expect(balance.subscriptionCredits).toBe(5000);
    expect((await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).tier).toBe("pro");
    const st = await call(status, { path: "/api/user/status", cookie });
    expect(st.body).toMatchObject({ status: "active_subscriber", tier: "pro", billingPeriod: "yearly", needsAction: false });
    // The initial payment shares the start's allocation key: credits are not set twice.
    await prisma.creditBalance.update({ where: { userId: user.id }, data: { subscriptionCredits: 4000 } });
    await deliver(
      invoiceEvent("subscription_payment_success", {
        id: "inv-c1",
        subscriptionId: "sub-c",
        userId: user.id,
        billingReason: "initial",
        updatedAt: "2026-11-01T00:00:01Z",
      }),
    );
    expect((await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } })).subscriptionCredits).toBe(4000);
    // A renewal payment allocates again, once per invoice.
    const renewal = invoiceEvent("subscription_payment_success", {
      id: "inv-c2",
      subscriptionId: "sub-c",
      userId: user.id,
      updatedAt: "2026-12-01T00:00:00Z",
    });
    await deliver(renewal);
    expect((await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } })).subscriptionCredits).toBe(5000);
    await prisma.creditBalance.update({ where: { userId: user.id }, data: { subscriptionCredits: 10 } });
    const dup = await deliver(renewal);
    expect(dup.body.duplicate).toBe(true);
    expect((await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } })).subscriptionCredits).toBe(10);
  });

  it("subscription_updated before subscription_created still yields the right record; older events never overwrite newer state", async () => {
    const { user } = await signIn("order@example.com");
    await deliver(
      subscriptionEvent("subscription_updated", {
        id: "sub-o",
        userId: user.id,
        variantId: "local-pro-monthly",
        status: "active",
        updatedAt: "2026-11-02T00:00:00Z",
      }),
    );
    const created = await deliver(
      subscriptionEvent("subscription_created", {
        id: "sub-o",
        userId: user.id,
        variantId: "local-basic-monthly",
        status: "active",
        updatedAt: "2026-11-01T00:00:00Z",
      }),
    );
    expect(created.status).toBe(200);
    expect(created.body.result).toMatch(/older/);
    expect(await sub("sub-o")).toMatchObject({ tier: "pro", variantId: "local-pro-monthly", status: "active" });
    await deliver(
      subscriptionEvent("subscription_cancelled", {
        id: "sub-o",
        userId: user.id,
        variantId: "local-pro-monthly",
        status: "cancelled",
        endsAt: "2026-12-02T00:00:00Z",
        updatedAt: "2026-11-03T00:00:00Z",
      }),
    );
    await deliver(
      subscriptionEvent("subscription_updated", {
        id: "sub-o",
        userId: user.id,
        variantId: "local-pro-monthly",
        status: "active",
        updatedAt: "2026-11-02T12:00:00Z",
      }),
    );
    expect(await sub("sub-o")).toMatchObject({ status: "cancelled" });
    expect((await sub("sub-o")).endsAt?.toISOString()).toBe("2026-12-02T00:00:00.000Z");
  });

  it("cancelled, resumed, paused, unpaused, expired move the status; expiry downgrades to free with the free allocation", async () => {
    const { user, cookie } = await signIn("life@example.com");
    const base = { id: "sub-l", userId: user.id, variantId: "local-basic-monthly" };
    await deliver(subscriptionEvent("subscription_created", { ...base, updatedAt: "2026-11-01T00:00:00Z" }));
    await deliver(
      subscriptionEvent("subscription_cancelled", {
        ...base,
        status: "cancelled",
        endsAt: "2030-01-01T00:00:00Z",
        updatedAt: "2026-11-02T00:00:00Z",
      }),
    );
    expect((await sub("sub-l")).status).toBe("cancelled");
    expect((await call(status, { path: "/api/user/status", cookie })).body).toMatchObject({ status: "cancelled", tier: "basic" });
    await deliver(subscriptionEvent("subscription_resumed", { ...base, status: "active", updatedAt: "2026-11-03T00:00:00Z" }));
    expect(await sub("sub-l")).toMatchObject({ status: "active", endsAt: null, cancelledAt: null });
    await deliver(subscriptionEvent("subscription_paused", { ...base, status: "paused", updatedAt: "2026-11-04T00:00:00Z" }));
    expect((await sub("sub-l")).status).toBe("paused");
    expect((await sub("sub-l")).pausedAt).not.toBeNull();
    await deliver(subscriptionEvent("subscription_unpaused", { ...base, status: "active", updatedAt: "2026-11-05T00:00:00Z" }));
    expect(await sub("sub-l")).toMatchObject({ status: "active", pausedAt: null });
    await deliver(
      subscriptionEvent("subscription_expired", {
        ...base,
        status: "expired",
        endsAt: "2026-11-06T00:00:00Z",
        updatedAt: "2026-11-06T00:00:00Z",
      }),
    );
    expect((await sub("sub-l")).status).toBe("expired");
    const prisma = await db();
    expect((await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).tier).toBe("free");
    expect((await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } })).subscriptionCredits).toBe(200);
    expect((await call(status, { path: "/api/user/status", cookie })).body).toMatchObject({ status: "free", tier: "free" });
  });

  it("payment_failed sets needsAction and emails the user; recovered clears it; a stale failure after a success is ignored", async () => {
    const { user, cookie } = await signIn("failing@example.com");
    const base = { id: "sub-f", userId: user.id };
    await deliver(subscriptionEvent("subscription_created", { ...base, updatedAt: "2026-11-01T00:00:00Z" }));
    await deliver(
      invoiceEvent("subscription_payment_failed", {
        id: "inv-f1",
        subscriptionId: "sub-f",
        userId: user.id,
        updatedAt: "2026-12-01T00:00:00Z",
      }),
    );
    expect((await sub("sub-f")).paymentFailedAt?.toISOString()).toBe("2026-12-01T00:00:00.000Z");
    expect((await call(status, { path: "/api/user/status", cookie })).body.needsAction).toBe(true);
    const prisma = await db();
    const mails = await prisma.emailLog.findMany({ where: { userId: user.id, type: "payment_failed" } });
    expect(mails).toHaveLength(1);
    expect(mails[0].to).toBe("failing@example.com");
    await deliver(
      invoiceEvent("subscription_payment_recovered", {
        id: "inv-f1",
        subscriptionId: "sub-f",
        userId: user.id,
        updatedAt: "2026-12-03T00:00:00Z",
      }),
    );
    expect((await sub("sub-f")).paymentFailedAt).toBeNull();
    expect((await call(status, { path: "/api/user/status", cookie })).body.needsAction).toBe(false);
    // A failure older than the recovery (delivered late) changes nothing and sends nothing.
    await deliver(
      invoiceEvent("subscription_payment_failed", {
        id: "inv-f0",
        subscriptionId: "sub-f",
        userId: user.id,
        updatedAt: "2026-12-02T00:00:00Z",
      }),
    );
    expect((await sub("sub-f")).paymentFailedAt).toBeNull();
    expect(await prisma.emailLog.count({ where: { userId: user.id, type: "payment_failed" } })).toBe(1);
    // A newer failure, then a success, clears again.
    await deliver(
      invoiceEvent("subscription_payment_failed", {
        id: "inv-f2",
        subscriptionId: "sub-f",
        userId: user.id,
        updatedAt: "2027-01-01T00:00:00Z",
      }),
    );
    expect((await sub("sub-f")).paymentFailedAt).not.toBeNull();
    await deliver(
      invoiceEvent("subscription_payment_success", {
        id: "inv-f2",
        subscriptionId: "sub-f",
        userId: user.id,
        updatedAt: "2027-01-02T00:00:00Z",
      }),
    );
    expect((await sub("sub-f")).paymentFailedAt).toBeNull();
  });

  it("order_created for a bonus variant grants once per order id; other orders are ignored", async () => {
    const { user } = await signIn("bonus@example.com");
    const first = await deliver(orderEvent({ id: "ord-1", userId: user.id, variantId: "local-bonus-basic-500" }));
    expect(first.body).toMatchObject({ status: "processed" });
    expect(first.body.result).toMatch(/granted 500/);
    // A different delivery body for the same order (e.g. a resend with other meta) grants nothing.
    const again = await deliver(
      orderEvent({ id: "ord-1", userId: user.id, variantId: "local-bonus-basic-500", extra: { webhook_id: "resend" } }),
    );
    expect(again.body).toMatchObject({ duplicate: false, status: "processed", result: "order already granted" });
    const prisma = await db();
    expect(await prisma.bonusPurchase.count({ where: { userId: user.id } })).toBe(1);
    expect((await prisma.bonusPurchase.findFirstOrThrow({ where: { orderId: "ord-1" } })).credits).toBe(500);
    expect((await deliver(orderEvent({ id: "ord-2", userId: user.id, variantId: "local-pro-monthly" }))).body.status).toBe("ignored");
    expect(
      (await deliver(orderEvent({ id: "ord-3", userId: user.id, variantId: "local-bonus-basic-500", status: "refunded" }))).body.status,
    ).toBe("ignored");
    expect(await prisma.bonusPurchase.count({ where: { userId: user.id } })).toBe(1);
  });

  it("acknowledges unknown event types (ignored) and answers 200 with the delivery marked failed when a handler fails", async () => {
    const { user } = await signIn("fail@example.com");
    const unknown = await deliver({ meta: { event_name: "license_key_created" }, data: { id: "1", type: "license-keys", attributes: {} } });
    expect(unknown.status).toBe(200);
    expect(unknown.body.status).toBe("ignored");
    // A subscription for a variant that is not in the catalog: the handler throws, the answer is still 200.
    const bad = subscriptionEvent("subscription_created", {
      id: "sub-bad",
      userId: user.id,
      variantId: "999999",
      updatedAt: "2026-11-01T00:00:00Z",
    });
    const res = await deliver(bad);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "failed" });
    const prisma = await db();
    const row = await prisma.webhookDelivery.findFirstOrThrow({ where: { objectId: "sub-bad" } });
    expect(row.status).toBe("failed");
    expect(row.error).toMatch(/not a plan/);
    expect(await prisma.subscription.count({ where: { providerSubscriptionId: "sub-bad" } })).toBe(0);
    // The same body redelivered is processed again (and fails again), not swallowed as a duplicate.
    expect((await deliver(bad)).body).toMatchObject({ duplicate: false, status: "failed" });
  });

  it("keeps events of an unknown buyer and applies them when that email registers (registration-first)", async () => {
    const email = "later@example.com";
    const created = await deliver(
      subscriptionEvent("subscription_created", {
        id: "sub-later",
        email,
        variantId: "local-pro-monthly",
        updatedAt: "2026-11-01T00:00:00Z",
      }),
    );
    expect(created.body.status).toBe("pending");
    const paid = await deliver(
      invoiceEvent("subscription_payment_success", {
        id: "inv-later",
        subscriptionId: "sub-later",
        email,
        billingReason: "initial",
        updatedAt: "2026-11-01T00:00:01Z",
      }),
    );
    expect(paid.body.status).toBe("pending");
    const order = await deliver(orderEvent({ id: "ord-later", email, variantId: "local-bonus-pro-2000" }));
    expect(order.body.status).toBe("pending");
    const prisma = await db();
    expect(await prisma.subscription.count({ where: { providerSubscriptionId: "sub-later" } })).toBe(0);

    const { user, cookie } = await signIn("Later@Example.com");
    expect(await sub("sub-later")).toMatchObject({ userId: user.id, tier: "pro" });
    expect(await prisma.bonusPurchase.count({ where: { userId: user.id, orderId: "ord-later" } })).toBe(1);
    expect(await prisma.webhookDelivery.count({ where: { userEmail: email, status: "pending" } })).toBe(0);
    expect((await call(status, { path: "/api/user/status", cookie })).body).toMatchObject({ status: "active_subscriber", tier: "pro" });
  });

  it("attaches a guest purchase to an existing account with the buyer's email, and keeps an invoice for an unknown subscription until it arrives", async () => {
    const { user } = await signIn("existing@example.com");
    const early = await deliver(
      invoiceEvent("subscription_payment_failed", {
        id: "inv-e",
        subscriptionId: "sub-e",
        userId: user.id,
        updatedAt: "2026-11-02T00:00:00Z",
      }),
    );
    expect(early.body.status).toBe("pending");
    await deliver(
      subscriptionEvent("subscription_created", { id: "sub-e", email: "EXISTING@example.com", updatedAt: "2026-11-01T00:00:00Z" }),
    );
    const row = await sub("sub-e");
    expect(row.userId).toBe(user.id);
    expect(row.paymentFailedAt?.toISOString()).toBe("2026-11-02T00:00:00.000Z");
  });
});
