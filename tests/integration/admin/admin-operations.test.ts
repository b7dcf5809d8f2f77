import { randomUUID } from "node:crypto";
import { svixHeaders } from "@/tests/helpers/svix";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as auditGet } from "@/app/api/admin/audit/route";
import { GET as cronGet } from "@/app/api/admin/cron/route";
import { POST as cronRun } from "@/app/api/admin/cron/[job]/run/route";
import { GET as emailsGet } from "@/app/api/admin/emails/route";
import { GET as summaryGet } from "@/app/api/admin/metrics/summary/route";
import { GET as usersGet } from "@/app/api/admin/users/route";
import { GET as userGet } from "@/app/api/admin/users/[id]/route";
import { POST as creditsPost } from "@/app/api/admin/users/[id]/credits/route";
import { POST as lockPost } from "@/app/api/admin/users/[id]/lock/route";
import { POST as unlockPost } from "@/app/api/admin/users/[id]/unlock/route";
import { GET as webhooksGet } from "@/app/api/admin/webhooks/route";
import { GET as webhookGet } from "@/app/api/admin/webhooks/[id]/route";
import { POST as replayPost } from "@/app/api/admin/webhooks/[id]/replay/route";
import { POST as chat } from "@/app/api/ai/chat/route";
import { GET as status } from "@/app/api/user/status/route";
import { POST as emailWebhook } from "@/app/api/webhooks/email/route";
import { closeDb, db } from "@/lib/db/client";
import { sendEmail } from "@/lib/email/send-email";
import { ensureUser } from "@/lib/users/ensure-user";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { deliver, orderEvent, subscriptionEvent } from "../billing/fixtures";

/**
 * The operator console's API on the real database: finding a user, adjusting credits (ledger row,
 * balance and audit row together; never below zero; once per key, also under concurrency), locking,
 * webhook deliveries and their replay through the webhook processing, cron runs, the email log, the
 * summary and the audit log.
 */
afterAll(closeDb);

let restore: () => void;
let op: { user: { id: string; email: string | null }; cookie: string };
beforeAll(async () => {
  restore = setEnv({ ADMIN_EMAILS: "operator@example.com" });
  op = await signIn("operator@example.com");
});
afterAll(() => restore());

const asOp = () => ({ cookie: op.cookie });
const adjust = (userId: string, body: Record<string, unknown>) =>
  call(creditsPost, { path: `/api/admin/users/${userId}/credits`, params: { id: userId }, body, ...asOp() });

async function balances(userId: string) {
  const prisma = await db();
  const balance = await prisma.creditBalance.findUniqueOrThrow({ where: { userId } });
  const bonus = await prisma.bonusPurchase.aggregate({ where: { userId, remaining: { gt: 0 } }, _sum: { remaining: true } });
  return { subscription: balance.subscriptionCredits, bonus: bonus._sum.remaining ?? 0 };
}

const ledgerCount = async (userId: string) => (await db()).creditTransaction.count({ where: { userId } });
const auditCount = async (targetId?: string) => (await db()).adminAction.count({ where: targetId ? { targetId } : {} });

describe("finding a user", () => {
  it("by email prefix, user id, identity id, provider subscription and customer id; pages with a cursor", async () => {
    const made = [];
    for (let i = 0; i < 5; i++) made.push((await signIn(`findme-${i}@example.com`)).user);
    await deliver(subscriptionEvent("subscription_created", { id: "sub-find-1", userId: made[2].id, updatedAt: "2026-11-01T00:00:00Z" }));
    const search = async (q: string, extra = "") =>
      (await call(usersGet, { path: `/api/admin/users?q=${encodeURIComponent(q)}${extra}`, ...asOp() })).body;

    const first = await search("FindMe-", "&limit=2");
    expect(first.users.map((u: { email: string }) => u.email)).toEqual(["findme-4@example.com", "findme-3@example.com"]);
    const second = await search("findme-", `&limit=2&cursor=${first.nextCursor}`);
    const third = await search("findme-", `&limit=2&cursor=${second.nextCursor}`);
    expect([...second.users, ...third.users].map((u: { email: string }) => u.email)).toEqual([
      "findme-2@example.com",
      "findme-1@example.com",
      "findme-0@example.com",
    ]);
    expect(third.nextCursor).toBeNull();

    expect((await search(made[1].id)).users.map((u: { id: string }) => u.id)).toEqual([made[1].id]);
    const bySub = (await search("sub-find-1")).users;
    expect(bySub).toHaveLength(1);
    expect(bySub[0]).toMatchObject({
      id: made[2].id,
      tier: "basic",
      subscriptionStatus: "active",
      balances: { subscription: 1000, bonus: 0 },
      locked: false,
    });
    expect((await search("99")).users.map((u: { id: string }) => u.id)).toEqual([made[2].id]); // the fixtures' Lemon Squeezy customer id
    const identity = await ensureUser({ externalId: "user_clerk_find", email: "identity-find@example.com" });
    expect((await search("user_clerk_find")).users.map((u: { id: string }) => u.id)).toEqual([identity.user.id]);

    const bad = await call(usersGet, { path: "/api/admin/users?cursor=@@@", ...asOp() });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/cursor/);
  });

  it("shows a user's subscriptions with state history, buckets, ledger, counts and related deliveries", async () => {
    const { user } = await signIn("overview@example.com");
    await deliver(subscriptionEvent("subscription_created", { id: "sub-ov", userId: user.id, updatedAt: "2026-11-01T00:00:00Z" }));
    await deliver(
      subscriptionEvent("subscription_cancelled", {
        id: "sub-ov",
        userId: user.id,
        status: "cancelled",
        endsAt: "2030-01-01T00:00:00Z",
        updatedAt: "2026-11-02T00:00:00Z",
      }),
    );
    await deliver(orderEvent({ id: "ord-ov", userId: user.id, variantId: "local-bonus-basic-500" }));
    const res = await call(userGet, { path: `/api/admin/users/${user.id}`, params: { id: user.id }, ...asOp() });
    expect(res.status).toBe(200);
    const sub = res.body.subscriptions[0];
    expect(sub).toMatchObject({ providerSubscriptionId: "sub-ov", providerCustomerId: "99", status: "cancelled", tier: "basic" });
    expect(
      sub.history.map((h: { event: string; statusFrom: string | null; statusTo: string; source: string }) => [
        h.event,
        h.statusFrom,
        h.statusTo,
        h.source,
      ]),
    ).toEqual([
      ["subscription_created", null, "active", "webhook"],
      ["subscription_cancelled", "active", "cancelled", "webhook"],
    ]);
    expect(res.body.credits.balances).toEqual({ subscription: 1000, bonus: 500 });
    expect(res.body.credits.bonus[0]).toMatchObject({ orderId: "ord-ov", credits: 500, remaining: 500 });
    expect(res.body.ledger.map((l: { type: string }) => l.type)).toEqual(["purchase", "monthly_reset", "monthly_reset"]);
    expect(res.body.deliveries.map((d: { eventType: string; status: string }) => [d.eventType, d.status])).toEqual([
      ["order_created", "processed"],
      ["subscription_cancelled", "processed"],
      ["subscription_created", "processed"],
    ]);
    expect(res.body.counts).toEqual({ files: 0, ragDocuments: 0, ragConversations: 0, emails: 0 });
    for (const id of [randomUUID(), "not-a-uuid"]) {
      const missing = await call(userGet, { path: `/api/admin/users/${id}`, params: { id }, ...asOp() });
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ error: "User not found", code: "not_found" });
    }
  });
});

describe("adjusting credits", () => {
  it("writes an adjustment ledger row with the operator and reason, the balance change and an audit row", async () => {
    const { user } = await signIn("adjust@example.com");
    const before = await balances(user.id);
    const res = await adjust(user.id, {
      amount: 120,
      bucket: "subscription",
      reason: "Goodwill: outage on 24 Nov",
      idempotencyKey: "ticket-1001",
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ applied: true, balances: { subscription: before.subscription + 120, bonus: 0 } });
    expect(await balances(user.id)).toEqual({ subscription: before.subscription + 120, bonus: 0 });
    const row = await (await db()).creditTransaction.findFirstOrThrow({ where: { userId: user.id, type: "adjustment" } });
    expect(row).toMatchObject({ amount: 120, balanceAfter: before.subscription + 120, operation: "admin_adjustment" });
    expect(row.metadata).toMatchObject({
      operatorId: op.user.id,
      operator: "operator@example.com",
      reason: "Goodwill: outage on 24 Nov",
      bucket: "subscription",
      requestId: res.headers.get("x-request-id"),
    });
    const audit = await (await db()).adminAction.findFirstOrThrow({ where: { targetId: user.id } });
    expect(audit).toMatchObject({
      operatorId: op.user.id,
      action: "credits.adjust",
      targetType: "user",
      reason: "Goodwill: outage on 24 Nov",
      requestId: res.headers.get("x-request-id"),
    });
    expect(audit.details).toMatchObject({ amount: 120, bucket: "subscription", idempotencyKey: "ticket-1001" });
  });

  it("refuses to go below zero in either bucket and changes nothing", async () => {
    const { user } = await signIn("below-zero@example.com");
    const before = { balances: await balances(user.id), ledger: await ledgerCount(user.id), audit: await auditCount(user.id) };
    const sub = await adjust(user.id, {
      amount: -(before.balances.subscription + 1),
      bucket: "subscription",
      reason: "too much",
      idempotencyKey: "bz-1",
    });
    expect(sub.status).toBe(400);
    expect(sub.body.error).toMatch(/subscription credits would go below zero/);
    const bonus = await adjust(user.id, { amount: -1, bucket: "bonus", reason: "too much", idempotencyKey: "bz-2" });
    expect(bonus.status).toBe(400);
    expect(bonus.body.error).toMatch(/bonus credits would go below zero/);
    expect({ balances: await balances(user.id), ledger: await ledgerCount(user.id), audit: await auditCount(user.id) }).toEqual(before);
    // The refused keys were not used up: the same key with a valid amount applies.
    expect((await adjust(user.id, { amount: -1, bucket: "subscription", reason: "fine", idempotencyKey: "bz-1" })).body.applied).toBe(true);
  });

  it("validates the body: a reason, a non-zero whole amount, a bucket and a key", async () => {
    const { user } = await signIn("adjust-validate@example.com");
    const bad = [
      [{ amount: 10, bucket: "subscription", idempotencyKey: "v1" }, /reason: is required/],
      [{ amount: 10, bucket: "subscription", reason: "  ", idempotencyKey: "v1" }, /reason: must say why/],
      [{ amount: 0, bucket: "subscription", reason: "zero", idempotencyKey: "v1" }, /amount: must not be 0/],
      [{ amount: 1.5, bucket: "subscription", reason: "half", idempotencyKey: "v1" }, /amount: must be a whole number/],
      [{ amount: 10, bucket: "gold", reason: "gold", idempotencyKey: "v1" }, /bucket: must be subscription or bonus/],
      [{ amount: 10, bucket: "bonus", reason: "no key" }, /idempotencyKey: is required/],
    ] as const;
    for (const [body, message] of bad) {
      const res = await adjust(user.id, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    expect(await auditCount(user.id)).toBe(0);
    const ghost = randomUUID();
    expect((await adjust(ghost, { amount: 10, bucket: "bonus", reason: "nobody", idempotencyKey: "g1" })).status).toBe(404);
  });

  it("applies the same key once, answers the first result again, and refuses the key for other values (409)", async () => {
    const { user } = await signIn("idempotent@example.com");
    const body = { amount: 50, bucket: "bonus", reason: "Refund for a failed image", idempotencyKey: "ticket-2002" };
    const first = await adjust(user.id, body);
    const again = await adjust(user.id, body);
    expect(first.body).toMatchObject({ applied: true, balances: { bonus: 50 } });
    expect(again.body).toMatchObject({ applied: false, operationId: first.body.operationId, balances: { bonus: 50 } });
    const other = await adjust(user.id, { ...body, amount: 60 });
    expect(other.status).toBe(409);
    expect(await auditCount(user.id)).toBe(1);
  });

  it("applies 20 concurrent adjustments with the same key exactly once", async () => {
    const { user } = await signIn("concurrent-adjust@example.com");
    const before = await balances(user.id);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        adjust(user.id, { amount: 7, bucket: "subscription", reason: "Concurrent goodwill", idempotencyKey: "same-key" }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(results.filter((r) => r.body.applied)).toHaveLength(1);
    expect(await balances(user.id)).toEqual({ ...before, subscription: before.subscription + 7 });
    expect(await (await db()).creditTransaction.count({ where: { userId: user.id, type: "adjustment" } })).toBe(1);
    expect(await auditCount(user.id)).toBe(1);
  });

  it("adds bonus credits as a purchase that expires, and removes them oldest expiry first", async () => {
    const { user } = await signIn("bonus-adjust@example.com");
    await deliver(orderEvent({ id: "ord-bonus-adj", userId: user.id, variantId: "local-bonus-basic-500" }));
    const add = await adjust(user.id, { amount: 300, bucket: "bonus", reason: "Make good", idempotencyKey: "b-add" });
    expect(add.body.balances.bonus).toBe(800);
    const remove = await adjust(user.id, { amount: -600, bucket: "bonus", reason: "Charged back", idempotencyKey: "b-remove" });
    expect(remove.body.balances.bonus).toBe(200);
    const purchases = await (await db()).bonusPurchase.findMany({ where: { userId: user.id }, orderBy: { expiresAt: "asc" } });
    expect(purchases.map((p) => [p.orderId, p.remaining])).toEqual([
      ["ord-bonus-adj", 0],
      ["adjust:b-add", 200],
    ]);
    const rows = await (
      await db()
    ).creditTransaction.findMany({ where: { userId: user.id, type: "adjustment" }, orderBy: { createdAt: "asc" } });
    expect(rows.map((r) => r.amount)).toEqual([300, -500, -100]);
  });

  it("writes the audit row in the same transaction as the change: a failing audit write undoes the adjustment", async () => {
    const { user } = await signIn("atomic-audit@example.com");
    const prisma = await db();
    const before = { balances: await balances(user.id), ledger: await ledgerCount(user.id) };
    await prisma.$executeRawUnsafe(`ALTER TABLE admin_actions ADD CONSTRAINT test_refuse_reason CHECK (reason <> 'refuse this audit row')`);
    try {
      const res = await adjust(user.id, {
        amount: 25,
        bucket: "subscription",
        reason: "refuse this audit row",
        idempotencyKey: "atomic-1",
      });
      expect(res.status).toBe(500);
      expect({ balances: await balances(user.id), ledger: await ledgerCount(user.id) }).toEqual(before);
      expect(await prisma.creditOperation.count({ where: { idempotencyKey: "adjust:atomic-1" } })).toBe(0);
    } finally {
      await prisma.$executeRawUnsafe(`ALTER TABLE admin_actions DROP CONSTRAINT test_refuse_reason`);
    }
  });
});

describe("locking", () => {
  it("locks: status says so, writes and charges are refused (403), reads still work; unlock restores; no-op changes write no audit row", async () => {
    const { user, cookie } = await signIn("lock-me@example.com");
    const lock = await call(lockPost, {
      path: `/api/admin/users/${user.id}/lock`,
      params: { id: user.id },
      body: { reason: "Chargeback fraud" },
      ...asOp(),
    });
    expect(lock.body).toMatchObject({ changed: true, locked: true, lockReason: "locked by an operator: Chargeback fraud" });
    expect((await call(status, { path: "/api/user/status", cookie })).body.isLocked).toBe(true);
    const charge = await call(chat, { path: "/api/ai/chat", body: { messages: [{ role: "user", content: "hi" }] }, cookie });
    expect(charge.status).toBe(403);
    expect(charge.body.error).toMatch(/locked/);
    const again = await call(lockPost, {
      path: `/api/admin/users/${user.id}/lock`,
      params: { id: user.id },
      body: { reason: "again" },
      ...asOp(),
    });
    expect(again.body.changed).toBe(false);
    const unlock = await call(unlockPost, {
      path: `/api/admin/users/${user.id}/unlock`,
      params: { id: user.id },
      body: { reason: "Resolved with the bank" },
      ...asOp(),
    });
    expect(unlock.body).toMatchObject({ changed: true, locked: false });
    expect((await call(chat, { path: "/api/ai/chat", body: { messages: [{ role: "user", content: "hi" }] }, cookie })).status).toBe(200);
    const actions = await (await db()).adminAction.findMany({ where: { targetId: user.id }, orderBy: { createdAt: "asc" } });
    expect(actions.map((a) => [a.action, a.reason])).toEqual([
      ["user.lock", "Chargeback fraud"],
      ["user.unlock", "Resolved with the bank"],
    ]);
    expect((await call(lockPost, { path: `/api/admin/users/${user.id}/lock`, params: { id: user.id }, body: {}, ...asOp() })).status).toBe(
      400,
    );
  });
});

describe("webhook deliveries and replay", () => {
  it("lists deliveries by source, status and type, shows one with its payload", async () => {
    const { user } = await signIn("deliveries@example.com");
    await deliver(orderEvent({ id: "ord-list", userId: user.id, variantId: "local-bonus-basic-500" }));
    const list = await call(webhooksGet, { path: "/api/admin/webhooks?source=payment&type=order_created&status=processed", ...asOp() });
    const row = list.body.deliveries.find((d: { objectId: string }) => d.objectId === "ord-list");
    expect(row).toMatchObject({ source: "payment", eventType: "order_created", status: "processed", userRef: user.id });
    const detail = await call(webhookGet, { path: `/api/admin/webhooks/${row.id}`, params: { id: row.id }, ...asOp() });
    expect(detail.body.payload.data.id).toBe("ord-list");
    expect(JSON.stringify(detail.body)).not.toContain(process.env.PAYMENT_WEBHOOK_SECRET);
    const byEmail = await call(webhooksGet, { path: `/api/admin/webhooks?q=${user.id}`, ...asOp() });
    expect(byEmail.body.deliveries.map((d: { id: string }) => d.id)).toContain(row.id);
    expect((await call(webhooksGet, { path: "/api/admin/webhooks?status=lost", ...asOp() })).status).toBe(400);
  });

  it("replaying a processed order_created grants nothing new", async () => {
    const { user } = await signIn("replay-order@example.com");
    await deliver(orderEvent({ id: "ord-replay", userId: user.id, variantId: "local-bonus-basic-500" }));
    const prisma = await db();
    const delivery = await prisma.webhookDelivery.findFirstOrThrow({ where: { objectId: "ord-replay" } });
    const before = { balances: await balances(user.id), ledger: await ledgerCount(user.id) };
    const res = await call(replayPost, {
      path: `/api/admin/webhooks/${delivery.id}/replay`,
      params: { id: delivery.id },
      body: { reason: "Customer says no credits" },
      ...asOp(),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "processed", result: "order already granted" });
    expect({ balances: await balances(user.id), ledger: await ledgerCount(user.id) }).toEqual(before);
    const audit = await prisma.adminAction.findFirstOrThrow({ where: { targetId: delivery.id } });
    expect(audit).toMatchObject({ action: "webhook.replay", reason: "Customer says no credits" });
    expect(audit.details).toMatchObject({ statusBefore: "processed", outcome: "processed" });
  });

  it("replays a failed delivery once its cause is fixed (a variant added to the catalog): applied once, a second replay changes nothing", async () => {
    const { user } = await signIn("replay-failed@example.com");
    await deliver(
      subscriptionEvent("subscription_created", {
        id: "sub-new-variant",
        userId: user.id,
        variantId: "111",
        updatedAt: "2026-11-03T00:00:00Z",
      }),
    );
    const prisma = await db();
    const delivery = await prisma.webhookDelivery.findFirstOrThrow({ where: { objectId: "sub-new-variant" } });
    expect(delivery.status).toBe("failed");
    expect(delivery.error).toMatch(/variant 111 is not a plan/);
    const restoreCatalog = setEnv({ PRICING_CONFIG: JSON.stringify({ tiers: { pro: { variants: { monthly: "111" } } } }) });
    try {
      const res = await call(replayPost, {
        path: `/api/admin/webhooks/${delivery.id}/replay`,
        params: { id: delivery.id },
        body: { reason: "Added variant 111 to PRICING_CONFIG" },
        ...asOp(),
      });
      expect(res.body).toMatchObject({ status: "processed", delivery: { status: "processed", error: null } });
      expect(await prisma.subscription.findUniqueOrThrow({ where: { providerSubscriptionId: "sub-new-variant" } })).toMatchObject({
        tier: "pro",
        status: "active",
      });
      const after = { balances: await balances(user.id), ledger: await ledgerCount(user.id) };
      expect(after.balances.subscription).toBe(5000);
      const twice = await call(replayPost, {
        path: `/api/admin/webhooks/${delivery.id}/replay`,
        params: { id: delivery.id },
        body: { reason: "Once more" },
        ...asOp(),
      });
      expect(twice.body.status).toBe("processed");
      expect({ balances: await balances(user.id), ledger: await ledgerCount(user.id) }).toEqual(after);
    } finally {
      restoreCatalog();
    }
  });

  it("replays a delivery kept for a buyer who registered later (the user now exists): credits arrive once", async () => {
    await deliver(orderEvent({ id: "ord-later", email: "later-buyer@example.com", variantId: "local-bonus-basic-500" }));
    const prisma = await db();
    const delivery = await prisma.webhookDelivery.findFirstOrThrow({ where: { objectId: "ord-later" } });
    expect(delivery.status).toBe("pending");
    // Created by a path that does not apply kept deliveries (as an import or an older version would).
    const { user } = await ensureUser({ email: "later-buyer@example.com" });
    expect((await balances(user.id)).bonus).toBe(0);
    const res = await call(replayPost, {
      path: `/api/admin/webhooks/${delivery.id}/replay`,
      params: { id: delivery.id },
      body: { reason: "Paid before registering" },
      ...asOp(),
    });
    expect(res.body.status).toBe("processed");
    expect((await balances(user.id)).bonus).toBe(500);
    await call(replayPost, {
      path: `/api/admin/webhooks/${delivery.id}/replay`,
      params: { id: delivery.id },
      body: { reason: "Again" },
      ...asOp(),
    });
    expect((await balances(user.id)).bonus).toBe(500);
  });

  it("answers 409 for a delivery being processed right now, 404 for an unknown one", async () => {
    const prisma = await db();
    const row = await prisma.webhookDelivery.create({
      data: { source: "payment", deliveryId: randomUUID(), eventType: "order_created", payload: {}, status: "received" },
    });
    expect(
      (await call(replayPost, { path: `/api/admin/webhooks/${row.id}/replay`, params: { id: row.id }, body: { reason: "now" }, ...asOp() }))
        .status,
    ).toBe(409);
    const id = randomUUID();
    expect(
      (await call(replayPost, { path: `/api/admin/webhooks/${id}/replay`, params: { id }, body: { reason: "ghost" }, ...asOp() })).status,
    ).toBe(404);
    expect(await auditCount(row.id)).toBe(0);
  });
});

describe("cron, email log, summary and audit", () => {
  it("lists each job's runs and runs one now under its lock, with an audit row", async () => {
    const overview = await call(cronGet, { path: "/api/admin/cron", ...asOp() });
    expect(overview.body.jobs.map((j: { job: string; schedule: string }) => [j.job, j.schedule])).toEqual([
      ["check-trials", "0 2 * * *"],
      ["expire-bonus-credits", "0 3 * * *"],
      ["deliver-webhooks", "*/5 * * * *"],
    ]);
    const run = await call(cronRun, {
      path: "/api/admin/cron/expire-bonus-credits/run",
      params: { job: "expire-bonus-credits" },
      body: { reason: "Backlog after outage" },
      ...asOp(),
    });
    expect(run.body).toMatchObject({ success: true, message: expect.stringMatching(/^Expired \d+ bonus credit purchase/) });
    const after = await call(cronGet, { path: "/api/admin/cron?job=expire-bonus-credits", ...asOp() });
    expect(after.body.jobs[0].runs[0]).toMatchObject({ job: "expire-bonus-credits", status: "succeeded" });
    const audit = await (await db()).adminAction.findFirstOrThrow({ where: { action: "cron.run" } });
    expect(audit).toMatchObject({ targetId: "expire-bonus-credits", reason: "Backlog after outage" });
    expect(audit.details).toMatchObject({ success: true });
    expect(
      (await call(cronRun, { path: "/api/admin/cron/nope/run", params: { job: "nope" }, body: { reason: "nope" }, ...asOp() })).status,
    ).toBe(404);
    expect((await call(cronGet, { path: "/api/admin/cron?job=nope", ...asOp() })).status).toBe(404);
  });

  it("shows the email log with its delivery events", async () => {
    const sent = await sendEmail({ to: "mailbox@example.com", subject: "Receipt", text: "Thanks", type: "receipt" });
    const payload = JSON.stringify({ type: "email.delivered", created_at: new Date().toISOString(), data: { email_id: sent.messageId } });
    const id = `msg_${randomUUID()}`;
    const at = new Date();
    await call(emailWebhook, {
      path: "/api/webhooks/email",
      rawBody: payload,
      headers: {
        "content-type": "application/json",
        ...svixHeaders(process.env.EMAIL_WEBHOOK_SECRET as string, payload, { id, at }),
      },
    });
    const res = await call(emailsGet, { path: "/api/admin/emails?status=delivered", ...asOp() });
    const row = res.body.emails.find((e: { id: string }) => e.id === sent.emailLogId);
    expect(row).toMatchObject({
      to: "mailbox@example.com",
      status: "delivered",
      events: [{ eventType: "email.delivered", status: "processed" }],
    });
  });

  it("summarizes users, subscriptions, credits, failed webhooks and cron runs", async () => {
    const res = await call(summaryGet, { path: "/api/admin/metrics/summary", ...asOp() });
    expect(res.status).toBe(200);
    const prisma = await db();
    expect(res.body.users.total).toBe(await prisma.user.count());
    expect(res.body.users.byTier.free).toBeGreaterThan(0);
    expect(res.body.subscriptions.active).toBeGreaterThan(0);
    expect(res.body.webhooks.failedLast24h).toBe(await prisma.webhookDelivery.count({ where: { status: "failed" } }));
    expect(res.body.credits.month.granted).toBeGreaterThanOrEqual(res.body.credits.today.granted);
    expect(res.body.credits.today.granted).toBeGreaterThan(0);
  });

  it("lists the audit log newest first, filtered by action, with cursors", async () => {
    const all = await call(auditGet, { path: "/api/admin/audit?limit=2", ...asOp() });
    expect(all.body.actions).toHaveLength(2);
    expect(all.body.nextCursor).toBeTruthy();
    const next = await call(auditGet, { path: `/api/admin/audit?limit=2&cursor=${all.body.nextCursor}`, ...asOp() });
    expect(next.body.actions[0].createdAt <= all.body.actions[1].createdAt).toBe(true);
    const locks = await call(auditGet, { path: "/api/admin/audit?action=user.lock", ...asOp() });
    expect(locks.body.actions.every((a: { action: string }) => a.action === "user.lock")).toBe(true);
    expect(locks.body.actions[0]).toMatchObject({ operator: "operator@example.com", operatorId: op.user.id });
  });
});
