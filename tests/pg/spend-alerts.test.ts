import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as chat from "@/app/api/ai/chat/route";
import * as endpoints from "@/app/api/webhook-endpoints/route";
import * as testEvent from "@/app/api/webhook-endpoints/[id]/test/route";
import { closeDb, db, dbKind } from "@/lib/db/client";
import { deliverDue, drainOutbound } from "@/lib/outbound/deliver-outbound";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { useFreshPostgres } from "@/tests/helpers/pg";
import { waitUntil } from "@/tests/helpers/wait-until";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/helpers/webhook-receiver";
import { useStubProvider } from "@/tests/integration/ai/ai-test-kit";

/**
 * Spend alerts and outbound webhooks on a real PostgreSQL: 32 charges at once cross 80% and 100% of
 * the allocation (and the low-balance level, and depletion) and each alert fires exactly once; a
 * receiver that fails 5 times then recovers gets every event exactly once, in order, while two
 * delivery runners race for the endpoint.
 */
process.env.DATABASE_POOL_MAX = "48";
await useFreshPostgres();
const { stub, restore } = await useStubProvider();
const undo = setEnv({ AI_MAX_CONCURRENT_PER_USER: "100" });
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  undo();
  restore();
  await receiver.close();
  await stub.close();
  await closeDb();
});

const hello = { messages: [{ role: "user", content: "Hello there" }] };

describe("spend alerts and outbound webhooks (PostgreSQL)", () => {
  it("runs on PostgreSQL", async () => {
    expect(await dbKind()).toBe("postgres");
  });

  it("32 concurrent charges crossing 80% and 100% at once fire each alert exactly once, delivered once each", async () => {
    const { user, cookie } = await signIn("pg-alerts@example.com");
    const created = await call(endpoints.POST, {
      path: "/api/webhook-endpoints",
      cookie,
      body: { url: receiver.url, events: ["budget.threshold", "credits.low", "credits.depleted"] },
    });
    expect(created.status).toBe(200);
    // An allocation worth 16 calls, with its ledger row.
    const prisma = await db();
    const balance = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
    await prisma.creditBalance.update({
      where: { userId: user.id },
      data: { monthlyAllocation: 240, subscriptionCredits: 240, resetAt: new Date() },
    });
    await prisma.creditTransaction.create({
      data: { userId: user.id, amount: 240 - balance.subscriptionCredits, balanceAfter: 240, type: "adjustment", operation: "test_setup" },
    });
    const results = await Promise.all(Array.from({ length: 32 }, () => call(chat.POST, { path: "/api/ai/chat", cookie, body: hello })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(16);
    expect(results.filter((r) => r.status === 402)).toHaveLength(16);
    await waitUntil("the four alerts to fire", async () => (await prisma.alertFiring.count({ where: { accountId: user.id } })) >= 4);
    await new Promise((r) => setTimeout(r, 200));
    const firings = await prisma.alertFiring.findMany({ where: { accountId: user.id } });
    expect(firings.map((f) => f.alert).sort()).toEqual(["allocation:100", "allocation:80", "depleted", "low"]);
    await drainOutbound();
    await waitUntil(
      "four deliveries",
      async () => receiver.received.filter((r) => (r.json as { accountId?: string }).accountId === user.id).length >= 4,
    );
    await new Promise((r) => setTimeout(r, 200));
    await deliverDue();
    const got = receiver.received.filter((r) => (r.json as { accountId?: string }).accountId === user.id);
    expect(got.map((r) => String(r.json.data.alert)).sort()).toEqual(["allocation:100", "allocation:80", "depleted", "low"]);
    expect(new Set(got.map((r) => r.json.id)).size).toBe(4);
    expect(await prisma.emailLog.count({ where: { to: user.email!, type: "alert" } })).toBe(4);
  });

  it("a receiver that fails 5 times then recovers gets every event exactly once, in order of creation, with two runners racing", async () => {
    const { user, cookie } = await signIn("pg-receiver@example.com");
    const ep = (
      await call(endpoints.POST, { path: "/api/webhook-endpoints", cookie, body: { url: receiver.url, events: ["credits.low"] } })
    ).body.endpoint;
    receiver.failNext(5, 500);
    const before = receiver.received.length;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++)
      ids.push(
        (await call(testEvent.POST, { path: `/api/webhook-endpoints/${ep.id}/test`, params: { id: ep.id }, cookie })).body.delivery.eventId,
      );
    await drainOutbound();
    let now = Date.now();
    for (let i = 0; i < 12; i++) {
      now += 15 * 60_000;
      await Promise.all([deliverDue(new Date(now)), deliverDue(new Date(now))]);
    }
    const mine = receiver.received.slice(before).filter((r) => ids.includes(r.json.id));
    expect(mine.filter((r) => r.status === 200).map((r) => r.json.id)).toEqual(ids);
    expect(mine.filter((r) => r.status !== 200).every((r) => r.json.id === ids[0])).toBe(true);
    expect(mine.filter((r) => r.status !== 200)).toHaveLength(5);
    expect(user.id).toBeTruthy();
  });

  it("20 concurrent endpoint registrations leave exactly the limit of 10; the others answer 403, and a disabled endpoint's test event 409", async () => {
    const { cookie, user } = await signIn(`endpoint-limit-${Date.now()}@example.com`);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(endpoints.POST, { path: "/api/webhook-endpoints", cookie, body: { url: `${receiver.url}?n=${i}`, events: ["credits.low"] } }),
      ),
    );
    expect(results.filter((r) => r.status === 201 || r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 403)).toHaveLength(10);
    const prisma = await db();
    expect(await prisma.webhookEndpoint.count({ where: { accountId: user.id } })).toBe(10);
    const one = await prisma.webhookEndpoint.findFirstOrThrow({ where: { accountId: user.id } });
    await prisma.webhookEndpoint.update({ where: { id: one.id }, data: { enabled: false } });
    const refused = await call(testEvent.POST, { path: `/api/webhook-endpoints/${one.id}/test`, params: { id: one.id }, cookie });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/disabled/);
  });
});
