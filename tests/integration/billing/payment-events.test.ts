import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as endpoints from "@/app/api/webhook-endpoints/route";
import { closeDb } from "@/lib/db/client";
import { drainOutbound } from "@/lib/outbound/deliver-outbound";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { waitUntil } from "@/tests/helpers/wait-until";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/helpers/webhook-receiver";
import { deliver, invoiceEvent, orderEvent, subscriptionEvent } from "./fixtures";
import { refundEvent } from "./refund-race";

/**
 * Payments reach the account's webhook endpoints: a pack bought (`credits.purchased`), refunded in
 * part and then in full (`payment.refunded`, one per refunded total) and a subscription's failed
 * payment (`payment.failed`), each told exactly once though the provider delivers it again.
 */
const restore = setEnv({ RATE_LIMIT_ENABLED: "false" });
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  restore();
  await receiver.close();
  await closeDb();
});

const PACK = "local-bonus-basic-500"; // 500 credits for $4.99

describe("payment events to the account's webhook endpoints", () => {
  it("credits.purchased, payment.refunded (partial, then full) and payment.failed, each once whatever the redeliveries", async () => {
    const { user, cookie } = await signIn(`payment-events-${Date.now()}@example.com`);
    const created = await call(endpoints.POST, {
      path: "/api/webhook-endpoints",
      cookie,
      body: { url: receiver.url, events: ["credits.purchased", "payment.*"] },
    });
    expect(created.status).toBe(200);
    const mine = () => receiver.received.filter((r) => (r.json as { accountId?: string }).accountId === user.id);

    const order = orderEvent({ id: `ord-events-${user.id}`, userId: user.id, variantId: PACK });
    expect((await deliver(order)).body.status).toBe("processed");
    // The same order delivered again as another delivery (a provider retry with a new envelope): nothing new is told.
    expect((await deliver({ ...order, meta: { ...order.meta, redelivered: 1 } })).status).toBe(200);
    await drainOutbound();
    await waitUntil("credits.purchased", async () => mine().some((r) => r.json.type === "credits.purchased"));

    expect((await deliver(refundEvent(order, 200))).body.status).toBe("processed");
    expect((await deliver(refundEvent(order, 200, "2026-11-02T00:00:01.000Z"))).status).toBe(200);
    expect((await deliver(refundEvent(order, 499, "2026-11-03T00:00:00.000Z"))).body.status).toBe("processed");

    const base = { id: `sub-events-${user.id}`, userId: user.id };
    await deliver(subscriptionEvent("subscription_created", { ...base, updatedAt: "2026-11-01T00:00:00Z" }));
    const failed = invoiceEvent("subscription_payment_failed", {
      id: `inv-events-${user.id}`,
      subscriptionId: base.id,
      userId: user.id,
      updatedAt: "2026-12-01T00:00:00Z",
    });
    expect((await deliver(failed)).body.status).toBe("processed");
    expect((await deliver({ ...failed, meta: { ...failed.meta, redelivered: 1 } })).status).toBe(200);
    await drainOutbound();
    await waitUntil("four payment events", async () => mine().length >= 4);
    await new Promise((r) => setTimeout(r, 100));
    await drainOutbound();

    const events = mine().map((r) => r.json);
    expect(events.map((e) => e.type)).toEqual(["credits.purchased", "payment.refunded", "payment.refunded", "payment.failed"]);
    expect(new Set(events.map((e) => e.id)).size).toBe(4);
    expect(events[0].data).toMatchObject({ credits: 500, amount: 499, currency: "USD", paymentId: expect.any(String) });
    expect(events[1].data).toMatchObject({
      kind: "pack",
      refundedAmount: 200,
      amount: 499,
      full: false,
      paymentId: events[0].data.paymentId,
    });
    expect(events[2].data).toMatchObject({ refundedAmount: 499, full: true });
    expect(Number(events[1].data.creditsTakenBack) + Number(events[2].data.creditsTakenBack)).toBe(500);
    expect(events[3].data).toMatchObject({ subscriptionId: base.id, tier: "basic", failedAt: "2026-12-01T00:00:00.000Z" });
  });
});
