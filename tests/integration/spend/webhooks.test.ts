import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "svix";
import * as endpoints from "@/app/api/webhook-endpoints/route";
import * as endpoint from "@/app/api/webhook-endpoints/[id]/route";
import * as testEvent from "@/app/api/webhook-endpoints/[id]/test/route";
import * as deliveries from "@/app/api/webhook-endpoints/[id]/deliveries/route";
import * as replay from "@/app/api/webhook-endpoints/[id]/deliveries/[deliveryId]/replay/route";
import * as rotate from "@/app/api/webhook-endpoints/[id]/rotate-secret/route";
import * as keysRoute from "@/app/api/keys/[id]/route";
import * as events from "@/app/api/webhook-events/route";
import * as resend from "@/app/api/webhook-events/[id]/resend/route";
import * as recover from "@/app/api/webhook-endpoints/[id]/recover/route";
import * as cron from "@/app/api/cron/deliver-webhooks/route";
import { closeDb, db } from "@/lib/db/client";
import { deliverDue, drainOutbound } from "@/lib/outbound/deliver-outbound";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { waitUntil } from "@/tests/helpers/wait-until";
import { startWebhookReceiver, verifyStandardWebhook, type WebhookReceiver } from "@/tests/helpers/webhook-receiver";
import { userWithKey } from "../api-keys/key-test-kit";

afterAll(closeDb);

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.close());

async function register(cookie: string, events: string[], url = receiver.url) {
  const res = await call(endpoints.POST, { path: "/api/webhook-endpoints", cookie, body: { url, events } });
  if (res.status !== 200) throw new Error(`endpoint not created: ${res.status} ${res.text}`);
  return res.body as { endpoint: { id: string }; secret: string };
}

const delivered = (eventType: string) => receiver.received.filter((r) => r.json.type === eventType && r.status === 200);

describe("outbound webhooks: registration, signature, delivery log", () => {
  it("signs each delivery by the Standard Webhooks scheme: svix's own verifier and a receiver written from the spec both accept it", async () => {
    const { cookie } = await signIn();
    const { endpoint: ep, secret } = await register(cookie, ["credits.low"]);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const sent = await call(testEvent.POST, { path: `/api/webhook-endpoints/${ep.id}/test`, params: { id: ep.id }, cookie });
    expect(sent.status).toBe(200);
    await waitUntil("the test event to arrive", async () =>
      delivered("webhook.test").some((r) => r.json.id === sent.body.delivery.eventId),
    );
    const got = receiver.received.find((r) => r.json.id === sent.body.delivery.eventId)!;
    expect(got.headers["webhook-id"]).toBe(sent.body.delivery.eventId);
    expect(got.headers["content-type"]).toBe("application/json");
    expect(() => new Webhook(secret).verify(got.body, got.headers)).not.toThrow();
    expect(verifyStandardWebhook(secret, got.headers, got.body)).toBe(true);
    expect(verifyStandardWebhook(secret, got.headers, got.body.replace("test", "tost"))).toBe(false);
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString("base64")}`).verify(got.body, got.headers)).toThrow();
    // The log shows it delivered, with its payload; a rotated secret signs from then on.
    await drainOutbound();
    const log = await call(deliveries.GET, { path: `/api/webhook-endpoints/${ep.id}/deliveries`, params: { id: ep.id }, cookie });
    expect(log.body.deliveries[0]).toMatchObject({ type: "webhook.test", status: "delivered", attempts: 1, lastStatus: 200 });
    // A rotation keeps the old secret signing beside the new one for 24 hours (both signatures), so the
    // receiver switches without a gap; a rotation with overlapHours 0 stops the old one at once.
    const rotated = await call(rotate.POST, { path: `/api/webhook-endpoints/${ep.id}/rotate-secret`, params: { id: ep.id }, cookie });
    expect(rotated.body.secret).not.toBe(secret);
    const overlapEnds = Date.parse(rotated.body.endpoint.previousSecretExpiresAt);
    expect(Math.abs(overlapEnds - (Date.now() + 24 * 3_600_000))).toBeLessThan(60_000);
    const sendTest = async () => {
      const sent = await call(testEvent.POST, { path: `/api/webhook-endpoints/${ep.id}/test`, params: { id: ep.id }, cookie });
      await waitUntil("the test event", async () => receiver.received.some((r) => r.json.id === sent.body.delivery.eventId));
      return receiver.received.find((r) => r.json.id === sent.body.delivery.eventId)!;
    };
    const second = await sendTest();
    expect(second.headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(() => new Webhook(rotated.body.secret).verify(second.body, second.headers)).not.toThrow();
    expect(() => new Webhook(secret).verify(second.body, second.headers)).not.toThrow();
    expect(verifyStandardWebhook(rotated.body.secret, second.headers, second.body)).toBe(true);
    const leaked = await call(rotate.POST, {
      path: `/api/webhook-endpoints/${ep.id}/rotate-secret`,
      params: { id: ep.id },
      cookie,
      body: { overlapHours: 0 },
    });
    expect(leaked.body.endpoint.previousSecretExpiresAt).toBeNull();
    const third = await sendTest();
    expect(third.headers["webhook-signature"].split(" ")).toHaveLength(1);
    expect(verifyStandardWebhook(leaked.body.secret, third.headers, third.body)).toBe(true);
    expect(verifyStandardWebhook(rotated.body.secret, third.headers, third.body)).toBe(false);
    expect(verifyStandardWebhook(secret, third.headers, third.body)).toBe(false);
    const bad = await call(rotate.POST, {
      path: `/api/webhook-endpoints/${ep.id}/rotate-secret`,
      params: { id: ep.id },
      cookie,
      body: { overlapHours: 500 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/overlapHours/);
  });

  it("a receiver that fails 5 times then recovers gets every event exactly once, in the order they were created", async () => {
    const { cookie } = await signIn();
    const { endpoint: ep } = await register(cookie, ["credits.low"]);
    const prisma = await db();
    const before = receiver.received.length;
    receiver.failNext(5, 503);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await call(testEvent.POST, { path: `/api/webhook-endpoints/${ep.id}/test`, params: { id: ep.id }, cookie })).body.delivery.eventId,
      );
    await drainOutbound();
    // The retries are due at 5 s, 30 s, 2 min, ...: the runner is asked at those times.
    let now = Date.now();
    for (let i = 0; i < 12 && receiver.received.slice(before).filter((r) => r.status === 200).length < 3; i++) {
      now += 15 * 60_000;
      await deliverDue(new Date(now));
    }
    const mine = receiver.received.slice(before).filter((r) => ids.includes(r.json.id));
    expect(mine.filter((r) => r.status !== 200)).toHaveLength(5);
    // Nothing after the first event went out before it did: every failure was the first event's.
    expect(new Set(mine.filter((r) => r.status !== 200).map((r) => r.json.id))).toEqual(new Set([ids[0]]));
    expect(mine.filter((r) => r.status === 200).map((r) => r.json.id)).toEqual(ids);
    const rows = await prisma.outboundDelivery.findMany({ where: { endpointId: ep.id }, include: { event: true } });
    expect(rows.every((r) => r.status === "delivered")).toBe(true);
    expect(rows.find((r) => r.eventId === ids[0])?.attempts).toBe(6);
  });

  it("after 3 days of failures a delivery fails for good, the endpoint is disabled and its owner emailed; enabling and replaying send it", async () => {
    const { user, cookie } = await signIn();
    const { endpoint: ep } = await register(cookie, ["credits.low"]);
    receiver.failNext(1000, 500);
    const sent = await call(testEvent.POST, { path: `/api/webhook-endpoints/${ep.id}/test`, params: { id: ep.id }, cookie });
    await drainOutbound();
    // Attempts every hour of a simulated 80 hours: each one that is due fails, until the 3 days are up.
    let now = Date.now();
    for (let i = 0; i < 80; i++) {
      now += 60 * 60_000;
      await deliverDue(new Date(now));
    }
    receiver.failNext(0);
    const prisma = await db();
    const row = await prisma.outboundDelivery.findFirstOrThrow({ where: { eventId: sent.body.delivery.eventId } });
    expect(row.status).toBe("failed");
    const disabled = await prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: ep.id } });
    expect(disabled.enabled).toBe(false);
    expect(disabled.disabledReason).toMatch(/3 days/);
    const mail = await prisma.emailLog.findFirst({ where: { to: user.email!, subject: "A webhook endpoint was disabled" } });
    expect(mail).not.toBeNull();
    // Replay needs the endpoint enabled (409), then sends it.
    const path = `/api/webhook-endpoints/${ep.id}/deliveries/${row.id}/replay`;
    expect((await call(replay.POST, { path, params: { id: ep.id, deliveryId: row.id }, cookie })).status).toBe(409);
    expect(
      (
        await call(endpoint.PATCH, {
          method: "PATCH",
          path: `/api/webhook-endpoints/${ep.id}`,
          params: { id: ep.id },
          cookie,
          body: { enabled: true },
        })
      ).body.endpoint.enabled,
    ).toBe(true);
    expect((await call(replay.POST, { path, params: { id: ep.id, deliveryId: row.id }, cookie })).status).toBe(200);
    await waitUntil(
      "the replayed delivery",
      async () => (await prisma.outboundDelivery.findUniqueOrThrow({ where: { id: row.id } })).status === "delivered",
    );
  });

  it("events fired while an endpoint is disabled wait for it: enabled again, it gets those of the last 3 days, in order; older ones fail", async () => {
    const { cookie, key } = await userWithKey();
    const { endpoint: ep } = await register(cookie, ["key.revoked", "credits.low"]);
    const patch = (enabled: boolean) =>
      call(endpoint.PATCH, { method: "PATCH", path: `/api/webhook-endpoints/${ep.id}`, params: { id: ep.id }, cookie, body: { enabled } });
    expect((await patch(false)).status).toBe(200);
    expect((await call(keysRoute.DELETE, { method: "DELETE", path: `/api/keys/${key.id}`, params: { id: key.id }, cookie })).status).toBe(
      200,
    );
    await drainOutbound();
    await deliverDue();
    expect(receiver.received.some((r) => r.json.data.keyId === key.id)).toBe(false);
    const prisma = await db();
    const waiting = await prisma.outboundDelivery.findMany({ where: { endpointId: ep.id }, include: { event: true } });
    expect(waiting.map((d) => [d.event.type, d.status])).toEqual([["key.revoked", "pending"]]);
    // A second event, as if it had waited for more than 3 days.
    const staleId = `msg_stale_${ep.id.slice(0, 8)}`;
    const stale = await prisma.outboundEvent.create({
      data: {
        id: staleId,
        accountId: waiting[0].event.accountId,
        type: "credits.low",
        payload: { id: staleId, type: "credits.low", data: {} },
        createdAt: new Date(Date.now() - 73 * 60 * 60_000),
      },
    });
    await prisma.outboundDelivery.create({ data: { eventId: stale.id, endpointId: ep.id, createdAt: stale.createdAt } });

    expect((await patch(true)).status).toBe(200);
    await waitUntil("the waiting key.revoked to arrive", async () => delivered("key.revoked").some((r) => r.json.data.keyId === key.id));
    await drainOutbound();
    expect(receiver.received.some((r) => r.json.id === stale.id)).toBe(false);
    const after = await prisma.outboundDelivery.findMany({ where: { endpointId: ep.id }, include: { event: true } });
    expect(after.find((d) => d.eventId === stale.id)).toMatchObject({ status: "failed", lastError: expect.stringMatching(/disabled/) });
    expect(after.find((d) => d.event.type === "key.revoked")).toMatchObject({ status: "delivered", attempts: 1 });
  });

  it("the events API lists an account's events by type and time, paged; resends one; recovers an endpoint's failures since a time", async () => {
    const { cookie } = await signIn();
    const { endpoint: ep } = await register(cookie, ["credits.low"]);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await call(testEvent.POST, { path: `/api/webhook-endpoints/${ep.id}/test`, params: { id: ep.id }, cookie })).body.delivery.eventId,
      );
    await drainOutbound();
    await waitUntil("three test events", async () => ids.every((id) => delivered("webhook.test").some((r) => r.json.id === id)));
    const first = await call(events.GET, { path: "/api/webhook-events?type=webhook.test&limit=2", cookie });
    expect(first.status).toBe(200);
    expect(first.body.events.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.events[0].deliveries).toEqual([
      expect.objectContaining({ channel: "webhook", endpointId: ep.id, status: "delivered", attempts: 1, lastStatus: 200 }),
    ]);
    const second = await call(events.GET, {
      path: `/api/webhook-events?type=webhook.test&limit=2&cursor=${first.body.nextCursor}`,
      cookie,
    });
    expect(second.body.events.map((e: { id: string }) => e.id)).toEqual([ids[0]]);
    expect(second.body.nextCursor).toBeNull();
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await call(events.GET, { path: `/api/webhook-events?from=${future}`, cookie })).body.events).toEqual([]);
    for (const bad of ["type=credits.lots", "from=yesterday", "limit=500", "cursor=abc"]) {
      const res = await call(events.GET, { path: `/api/webhook-events?${bad}`, cookie });
      expect(res.status, bad).toBe(400);
      expect(res.body.error, bad).toMatch(new RegExp(bad.split("=")[0]));
    }
    // Resend: the receiver gets the same event (same webhook-id) again.
    const before = receiver.received.filter((r) => r.json.id === ids[0]).length;
    const resent = await call(resend.POST, { path: `/api/webhook-events/${ids[0]}/resend`, params: { id: ids[0] }, cookie });
    expect(resent.status).toBe(200);
    await waitUntil("the resent event", async () => receiver.received.filter((r) => r.json.id === ids[0]).length === before + 1);
    const other = await signIn();
    expect(
      (await call(resend.POST, { path: `/api/webhook-events/${ids[0]}/resend`, params: { id: ids[0] }, cookie: other.cookie })).status,
    ).toBe(404);
    // Recover: failed deliveries since a time go out again.
    const prisma = await db();
    await prisma.outboundDelivery.updateMany({ where: { endpointId: ep.id }, data: { status: "failed" } });
    await drainOutbound();
    const since = new Date(Date.now() - 60_000).toISOString();
    const recovered = await call(recover.POST, {
      path: `/api/webhook-endpoints/${ep.id}/recover`,
      params: { id: ep.id },
      cookie,
      body: { since },
    });
    expect(recovered.status).toBe(200);
    expect(recovered.body.recovered).toBe(3);
    await drainOutbound();
    await waitUntil(
      "the recovered deliveries",
      async () => (await prisma.outboundDelivery.count({ where: { endpointId: ep.id, status: "delivered" } })) === 3,
    );
    expect(
      (await call(recover.POST, { path: `/api/webhook-endpoints/${ep.id}/recover`, params: { id: ep.id }, cookie, body: {} })).status,
    ).toBe(400);
    expect(
      (
        await call(recover.POST, {
          path: `/api/webhook-endpoints/${ep.id}/recover`,
          params: { id: ep.id },
          cookie: other.cookie,
          body: { since },
        })
      ).status,
    ).toBe(404);
    // A disabled endpoint is enabled first (what waited goes out then): 409.
    await call(endpoint.PATCH, {
      method: "PATCH",
      path: `/api/webhook-endpoints/${ep.id}`,
      params: { id: ep.id },
      cookie,
      body: { enabled: false },
    });
    const disabled = await call(recover.POST, {
      path: `/api/webhook-endpoints/${ep.id}/recover`,
      params: { id: ep.id },
      cookie,
      body: { since },
    });
    expect(disabled.status).toBe(409);
    expect(disabled.body.error).toMatch(/disabled/);
  });

  it("key.revoked reaches the key owner's endpoints; another account's endpoint is 404; bad input is 400", async () => {
    const { cookie, key } = await userWithKey();
    const { endpoint: ep } = await register(cookie, ["key.revoked"]);
    expect((await call(keysRoute.DELETE, { method: "DELETE", path: `/api/keys/${key.id}`, params: { id: key.id }, cookie })).status).toBe(
      200,
    );
    await waitUntil("key.revoked to arrive", async () => delivered("key.revoked").some((r) => r.json.data.keyId === key.id));
    const other = await signIn();
    for (const handler of [testEvent.POST, rotate.POST]) {
      expect((await call(handler, { path: `/api/webhook-endpoints/${ep.id}/x`, params: { id: ep.id }, cookie: other.cookie })).status).toBe(
        404,
      );
    }
    expect(
      (
        await call(endpoint.DELETE, {
          method: "DELETE",
          path: `/api/webhook-endpoints/${ep.id}`,
          params: { id: ep.id },
          cookie: other.cookie,
        })
      ).status,
    ).toBe(404);
    const badEvent = await call(endpoints.POST, {
      path: "/api/webhook-endpoints",
      cookie,
      body: { url: receiver.url, events: ["credits.lots"] },
    });
    expect(badEvent.status).toBe(400);
    expect(badEvent.body.error).toMatch(/events/);
    expect(
      (
        await call(endpoints.POST, {
          path: "/api/webhook-endpoints",
          cookie,
          body: { url: "ftp://example.com/x", events: ["credits.low"] },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call(endpoints.POST, {
          path: "/api/webhook-endpoints",
          cookie,
          body: { url: "https://u:p@example.com/x", events: ["credits.low"] },
        })
      ).status,
    ).toBe(400);
    expect(
      (await call(endpoints.POST, { path: "/api/webhook-endpoints", body: { url: receiver.url, events: ["credits.low"] } })).status,
    ).toBe(401);
  });

  it("in production: https only, and no endpoint that is or resolves to a loopback, private or link-local address (at registration and at delivery)", async () => {
    const { cookie } = await signIn();
    // Registered while private targets are allowed (development), then the server runs in production.
    const { endpoint: ep } = await register(cookie, ["credits.low"], receiver.url.replace("127.0.0.1", "localhost"));
    // The receiver's port is allowed here, so what stops the delivery is its loopback address.
    const restore = setEnv({
      APP_ENV: "production",
      CRON_SECRET: "c".repeat(32),
      OUTBOUND_WEBHOOKS_ALLOWED_PORTS: new URL(receiver.url).port,
    });
    try {
      // Ports: 80, 443 and the allowed list only (a 400 naming the port), at registration.
      const port = await call(endpoints.POST, {
        path: "/api/webhook-endpoints",
        cookie,
        body: { url: "https://example.com:8080/hook", events: ["credits.low"] },
      });
      expect(port.status).toBe(400);
      expect(port.body.error).toMatch(/port 8080 is not allowed: webhooks go to ports 80 and 443 and \d+/);
      for (const url of [
        "http://example.com/hook",
        "https://127.0.0.1/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://localhost/hook",
        "https://[::1]/hook",
        "https://10.1.2.3/hook",
      ]) {
        const res = await call(endpoints.POST, { path: "/api/webhook-endpoints", cookie, body: { url, events: ["credits.low"] } });
        expect(res.status, url).toBe(400);
        expect(res.body.error, url).toMatch(/https|private|loopback|link-local|resolve/);
      }
      const before = receiver.received.length;
      const sent = await call(testEvent.POST, { path: `/api/webhook-endpoints/${ep.id}/test`, params: { id: ep.id }, cookie });
      await drainOutbound();
      await deliverDue();
      expect(receiver.received.length).toBe(before);
      const prisma = await db();
      const row = await prisma.outboundDelivery.findFirstOrThrow({ where: { eventId: sent.body.delivery.eventId } });
      expect(row.status).toBe("pending");
      expect(row.lastError).toMatch(/127\.0\.0\.1|::1|loopback/);
    } finally {
      restore();
    }
    // Without the port on the list, the same delivery is refused for its port before any connection.
    const strict = setEnv({ APP_ENV: "production", CRON_SECRET: "c".repeat(32) });
    try {
      const sent = await call(testEvent.POST, { path: `/api/webhook-endpoints/${ep.id}/test`, params: { id: ep.id }, cookie });
      expect(sent.status).toBe(200);
      const prisma = await db();
      await prisma.outboundDelivery.updateMany({ where: { endpointId: ep.id, status: "pending" }, data: { nextAttemptAt: new Date() } });
      await drainOutbound();
      await deliverDue();
      // The endpoint's queue head (the first test event, still pending) is what was attempted.
      const head = await prisma.outboundDelivery.findFirstOrThrow({ where: { endpointId: ep.id }, orderBy: { createdAt: "asc" } });
      expect(head.lastError).toMatch(/port \d+ is not allowed/);
    } finally {
      strict();
    }
  });

  it("the deliver-webhooks cron job sends what is due", async () => {
    const res = await call(cron.POST, {
      path: "/api/cron/deliver-webhooks",
      headers: { authorization: `Bearer ${process.env.CRON_SECRET}` },
    });
    expect(res.status).toBe(200);
    expect(res.body.message ?? JSON.stringify(res.body)).toMatch(/Delivered \d+/);
  });
});

describe("outbound webhooks in the operator console", () => {
  it("lists deliveries by status and account, and replays one with an audit row", async () => {
    const { GET: outboundGet } = await import("@/app/api/admin/outbound/route");
    const { POST: outboundReplay } = await import("@/app/api/admin/outbound/[id]/replay/route");
    const { GET: auditGet } = await import("@/app/api/admin/audit/route");
    const { operatorCookie } = await import("../organisations/org-test-kit");
    const restore = setEnv({ ADMIN_EMAILS: "outbound-operator@example.com" });
    try {
      const operator = await operatorCookie("outbound-operator@example.com");
      const { user, cookie } = await signIn();
      const { endpoint: ep } = await register(cookie, ["credits.low"]);
      const sent = await call(testEvent.POST, { path: `/api/webhook-endpoints/${ep.id}/test`, params: { id: ep.id }, cookie });
      await drainOutbound();
      const list = await call(outboundGet, { path: `/api/admin/outbound?accountId=${user.id}`, cookie: operator });
      expect(list.status).toBe(200);
      expect(list.body.deliveries).toEqual([
        expect.objectContaining({ id: sent.body.delivery.id, type: "webhook.test", status: "delivered", target: receiver.url }),
      ]);
      const before = receiver.received.length;
      const replayed = await call(outboundReplay, {
        path: `/api/admin/outbound/${sent.body.delivery.id}/replay`,
        params: { id: sent.body.delivery.id },
        cookie: operator,
        body: { reason: "customer lost it" },
      });
      expect(replayed.status).toBe(200);
      await waitUntil("the replay to arrive", async () => receiver.received.length > before);
      const trail = await call(auditGet, { path: `/api/admin/audit?targetId=${sent.body.delivery.id}`, cookie: operator });
      const entries = trail.body.entries ?? trail.body.items ?? trail.body.actions;
      expect(entries[0]).toMatchObject({ action: "outbound.replay", targetType: "outbound" });
      expect((await call(outboundGet, { path: "/api/admin/outbound", cookie })).status).toBe(404);
    } finally {
      restore();
    }
  });
});
