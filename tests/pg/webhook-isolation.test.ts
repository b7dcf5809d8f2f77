import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as endpoints from "@/app/api/webhook-endpoints/route";
import * as testEvent from "@/app/api/webhook-endpoints/[id]/test/route";
import { closeDb, db, dbKind } from "@/lib/db/client";
import { drainOutbound } from "@/lib/outbound/deliver-outbound";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { useFreshPostgres } from "@/tests/helpers/pg";
import { waitUntil } from "@/tests/helpers/wait-until";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/helpers/webhook-receiver";

/**
 * Outbound delivery on a real PostgreSQL, where one receiver's trouble must stay its own: 20
 * endpoints of 20 accounts, 3 of them slow or failing with a backlog, and the 17 healthy ones get their
 * events within seconds; and a run that outlasts the endpoint's lease keeps it (renewed before every
 * send), so no other runner takes the endpoint over mid-run and nothing is sent twice.
 */
await useFreshPostgres();
const undo = setEnv({ RATE_LIMIT_ENABLED: "false" });
let healthy: WebhookReceiver;
let slow: WebhookReceiver;
let failing: WebhookReceiver;
beforeAll(async () => {
  [healthy, slow, failing] = await Promise.all([startWebhookReceiver(), startWebhookReceiver(), startWebhookReceiver()]);
  slow.answerAfter(8_000);
  failing.failNext(1_000_000, 503);
});
afterAll(async () => {
  undo();
  await Promise.all([healthy, slow, failing].map((r) => r.close()));
  await closeDb();
});

async function endpointOf(url: string): Promise<{ id: string; cookie: string }> {
  const { cookie } = await signIn();
  const res = await call(endpoints.POST, { path: "/api/webhook-endpoints", cookie, body: { url, events: ["credits.low"] } });
  expect(res.status).toBe(200);
  return { id: res.body.endpoint.id as string, cookie };
}

const sendTest = async (ep: { id: string; cookie: string }) => {
  const res = await call(testEvent.POST, { path: `/api/webhook-endpoints/${ep.id}/test`, params: { id: ep.id }, cookie: ep.cookie });
  expect(res.status).toBe(200);
  return res.body.delivery.eventId as string;
};

describe("outbound delivery isolation (PostgreSQL)", () => {
  it("runs on PostgreSQL", async () => {
    expect(await dbKind()).toBe("postgres");
  });

  it("20 endpoints, 3 slow or failing with 10 events queued each: the 17 healthy ones get theirs within seconds", async () => {
    const troubled = [await endpointOf(slow.url), await endpointOf(slow.url), await endpointOf(failing.url)];
    const fine = [];
    for (let i = 0; i < 17; i++) fine.push(await endpointOf(healthy.url));
    for (const ep of troubled) for (let i = 0; i < 10; i++) await sendTest(ep);
    // The slow receivers are now holding their runs (8 s per event).
    await waitUntil("the slow receivers to be answering", async () => slow.inFlight().now === 2);
    const started = Date.now();
    const ids = await Promise.all(fine.map(sendTest));
    await waitUntil(
      "the 17 healthy endpoints' events",
      async () => ids.every((id) => healthy.received.some((r) => r.json.id === id)),
      10_000,
    );
    const took = Date.now() - started;
    expect(took).toBeLessThan(5_000);
    // Each slow endpoint still sends one event at a time, in order.
    expect(slow.inFlight().max).toBe(2);
    const prisma = await db();
    await prisma.webhookEndpoint.updateMany({ where: { id: { in: troubled.map((t) => t.id) } }, data: { enabled: false } });
    await drainOutbound();
  }, 60_000);

  it("a run longer than the endpoint's lease keeps it: no other runner takes the endpoint over, each event is sent once", async () => {
    const receiver = await startWebhookReceiver();
    try {
      const ep = await endpointOf(receiver.url);
      const prisma = await db();
      let takeovers = 0;
      // Each send takes 50 s of the lease's 60 (the clock moved on), and another instance tries to take the endpoint each time.
      receiver.beforeAnswer(async () => {
        await prisma.$executeRaw`UPDATE webhook_endpoints SET locked_until = locked_until - interval '50 seconds' WHERE id = ${ep.id}`;
        const taken = await prisma.$queryRaw<{ id: string }[]>`
          UPDATE webhook_endpoints SET locked_until = now() + interval '60 seconds'
           WHERE id = ${ep.id} AND enabled AND (locked_until IS NULL OR locked_until < now()) RETURNING id`;
        takeovers += taken.length;
      });
      // A receiver slow enough that all six are queued while the first is in flight: one run sends them all.
      receiver.answerAfter(300);
      const queued: string[] = [];
      for (let i = 0; i < 6; i++) queued.push(await sendTest(ep));
      await waitUntil("six deliveries", async () => receiver.received.length >= 6, 15_000);
      await drainOutbound();
      expect(takeovers).toBe(0);
      expect(receiver.inFlight().max).toBe(1);
      expect(receiver.received.map((r) => r.json.id)).toEqual(queued);
    } finally {
      await receiver.close();
    }
  }, 60_000);
});
