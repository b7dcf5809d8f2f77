import { svixHeaders } from "@/tests/helpers/svix";
import { startWebhookReceiver } from "@/tests/helpers/webhook-receiver";
import { waitUntil } from "@/tests/helpers/wait-until";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@/tests/e2e/client";
import { ensureBuild } from "@/tests/e2e/server";
import { startStripeSimulator, type StripeSimulator } from "@/lib/simulator/stripe/stripe-simulator";
import { ADMIN_TOKEN, CRON_SECRET, IDENTITY_SECRET, startCluster, type Cluster } from "./cluster";

/**
 * Many instances, as production runs them: three standalone servers on one PostgreSQL and one Redis
 * behind a round-robin load balancer. What must hold across processes, not just across requests of
 * one: charges never overspend and the ledger adds up, rate limits are one window whichever instance
 * answers, a cron job never runs twice at once, a lock or a deletion reaches every instance within
 * the documented 5 seconds, a process killed mid-charge leaves nothing charged that was not
 * delivered. Then all of it again through PgBouncer in transaction pooling mode.
 */
beforeAll(() => ensureBuild(console.log), 600_000);

const STRIPE_KEY = "sk_test_instances";
const STRIPE_SECRET = "whsec_instances_stripe_secret";

const admin = (c: Cluster, path: string, init: RequestInit = {}) =>
  fetch(`${c.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json", ...(init.headers as Record<string, string>) },
  });

async function signedIn(c: Cluster, email: string): Promise<{ client: Client; id: string }> {
  const client = new Client(c.url);
  const res = await client.signIn(email);
  expect(res.status).toBe(200);
  const { body } = await client.json<{ user: { id: string } }>("/api/auth/session");
  return { client, id: body.user.id };
}

/** Sets the user's subscription credits to exactly `target` through the operator API (an audited adjustment). */
async function setCredits(c: Cluster, userId: string, target: number): Promise<void> {
  const [row] = await c.sql<{ subscription_credits: number }>("SELECT subscription_credits FROM credit_balances WHERE user_id = $1", [
    userId,
  ]);
  const amount = target - row.subscription_credits;
  if (amount === 0) return;
  const res = await admin(c, `/api/admin/users/${userId}/credits`, {
    method: "POST",
    body: JSON.stringify({ amount, bucket: "subscription", reason: "instances suite setup", idempotencyKey: `set-${userId}-${target}` }),
  });
  expect(res.status).toBe(200);
}

async function expectLedgerAddsUp(c: Cluster, userId: string): Promise<void> {
  const [b] = await c.sql<{ subscription_credits: number }>("SELECT subscription_credits FROM credit_balances WHERE user_id = $1", [
    userId,
  ]);
  const [l] = await c.sql<{ sum: string }>(
    "SELECT COALESCE(SUM(amount), 0) AS sum FROM credit_transactions WHERE user_id = $1 AND bonus_purchase_id IS NULL",
    [userId],
  );
  expect(Number(l.sum)).toBe(b.subscription_credits);
  expect(b.subscription_credits).toBeGreaterThanOrEqual(0);
}

describe.each([
  { name: "directly on PostgreSQL", viaPgBouncer: false },
  { name: "through PgBouncer 1.18 in transaction pooling mode", viaPgBouncer: true },
])("three instances, $name", ({ viaPgBouncer }) => {
  let c: Cluster;
  // Stripe sells here (its local simulator, reached over HTTP by every instance; webhooks through the balancer).
  let stripe: StripeSimulator;
  beforeAll(async () => {
    stripe = await startStripeSimulator({
      apiKey: STRIPE_KEY,
      webhookSecret: STRIPE_SECRET,
      webhookUrl: () => `${c.url}/api/webhooks/stripe`,
    });
    c = await startCluster({
      viaPgBouncer,
      // One of the three is a 2-process server (WEB_CONCURRENCY): the suite's limits hold across its processes too.
      firstInstanceProcesses: 2,
      env: { PAYMENT_PROVIDER: "stripe", STRIPE_SECRET_KEY: STRIPE_KEY, STRIPE_WEBHOOK_SECRET: STRIPE_SECRET, STRIPE_API_BASE: stripe.url },
    });
  }, 300_000);
  afterAll(async () => {
    await c?.stop();
    await stripe?.close();
  });

  it("three instances start one auto-recharge: 32 concurrent charges over them cross the threshold, one top-up is paid once", async () => {
    const { client, id } = await signedIn(c, `recharge-${viaPgBouncer}@example.com`);
    const pay = async (path: string, variantId: string) => {
      const res = await client.json<{ checkoutUrl: string }>(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ variantId }),
      });
      expect(res.status).toBe(200);
      expect((await fetch(`${res.body.checkoutUrl}/pay`, { method: "POST", redirect: "manual" })).status).toBe(303);
    };
    await pay("/api/payments/create-checkout", "local-basic-monthly");
    await pay("/api/credits/checkout", "local-bonus-basic-500"); // 1,000 + 500 credits; the card is saved
    const on = await client.fetch("/api/credits/auto-recharge", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        enabled: true,
        threshold: 1400,
        variantId: "local-bonus-basic-500",
        monthlyMaxCount: 3,
        monthlyMaxAmount: 2000,
      }),
    });
    expect(on.status).toBe(200);
    const results = await Promise.all(
      Array.from({ length: 32 }, () =>
        client.fetch("/api/ai/chat", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ messages: [{ role: "user", content: "hello" }] }),
        }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    await waitUntil(
      "the top-up to be paid",
      async () => (await c.sql("SELECT 1 FROM auto_recharges WHERE account_id = $1 AND status = 'succeeded'", [id])).length === 1,
    );
    await new Promise((r) => setTimeout(r, 4_000)); // every instance's loop ran again: nothing more is paid
    const recharges = await c.sql<{ id: string; status: string }>("SELECT id, status FROM auto_recharges WHERE account_id = $1", [id]);
    expect(recharges).toEqual([expect.objectContaining({ status: "succeeded" })]);
    const paid = stripe.events.filter(
      (e) =>
        e.event.type === "payment_intent.succeeded" &&
        (e.event.data as { object: { metadata?: { auto_recharge_id?: string } } }).object.metadata?.auto_recharge_id === recharges[0].id,
    );
    expect(paid).toHaveLength(1);
    const packs = await c.sql("SELECT 1 FROM bonus_purchases WHERE user_id = $1", [id]);
    expect(packs).toHaveLength(2);
  });

  it("64 concurrent charges spread over the instances against 20 charges' worth: exactly 20 answered, each settled once, the ledger adds up", async () => {
    const { client, id } = await signedIn(c, `charges-${viaPgBouncer}@example.com`);
    await setCredits(c, id, 20 * 15);
    const results = await Promise.all(
      Array.from({ length: 64 }, () =>
        client.fetch("/api/ai/chat", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ messages: [{ role: "user", content: "hello" }] }),
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 402)).toHaveLength(44);
    // Settlements are written just after the answers: wait until none is left reserved.
    await waitUntil(
      "every charge to be settled",
      async () => (await c.sql("SELECT 1 FROM credit_operations WHERE user_id = $1 AND status = 'reserved'", [id])).length === 0,
    );
    const ops = await c.sql<{ status: string; amount: number }>(
      "SELECT status, amount FROM credit_operations WHERE user_id = $1 AND kind = 'charge'",
      [id],
    );
    expect(ops).toHaveLength(20);
    expect(ops.every((o) => o.status === "settled" && o.amount === 15)).toBe(true);
    const [usage] = await c.sql<{ n: string; sum: string }>(
      "SELECT COUNT(*) AS n, SUM(amount) AS sum FROM credit_transactions WHERE user_id = $1 AND type = 'usage'",
      [id],
    );
    expect(Number(usage.sum)).toBe(-300);
    await expectLedgerAddsUp(c, id);
  });

  it("an organisation's wallet and its members' caps hold across the instances: 8 members x 16 concurrent calls, wallet worth 50 calls, caps worth 10", async () => {
    const owner = await signedIn(c, `org-owner-${viaPgBouncer}@example.com`);
    const created = await owner.client.fetch("/api/orgs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: `Instances ${viaPgBouncer}` }),
    });
    expect(created.status).toBe(200);
    const orgId = ((await created.json()) as { organisation: { id: string } }).organisation.id;
    const members = [];
    for (let i = 0; i < 8; i++) {
      const m = await signedIn(c, `org-member${i}-${viaPgBouncer}@example.com`);
      // Membership is set up directly (the invitation flow has its own tests); the caps through the API.
      await c.sql("INSERT INTO organisation_members (organisation_id, user_id, role, updated_at) VALUES ($1, $2, 'member', now())", [
        orgId,
        m.id,
      ]);
      const capped = await owner.client.fetch(`/api/orgs/${orgId}/members/${m.id}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ dailyCap: 150 }),
      });
      expect(capped.status).toBe(200);
      members.push(m);
    }
    await setCredits(c, orgId, 50 * 15);
    const results = await Promise.all(
      members.flatMap((m, i) =>
        Array.from({ length: 16 }, () =>
          m.client
            .fetch("/api/ai/chat", {
              method: "POST",
              headers: { "content-type": "application/json", "x-account-id": orgId },
              body: JSON.stringify({ messages: [{ role: "user", content: "hello" }] }),
            })
            .then((r) => ({ i, status: r.status })),
        ),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(results.every((r) => r.status === 200 || r.status === 402 || r.status === 429)).toBe(true);
    expect(ok).toHaveLength(50);
    const perMember = members.map((_, i) => ok.filter((r) => r.i === i).length);
    expect(Math.max(...perMember)).toBeLessThanOrEqual(10);
    await waitUntil(
      "every charge to be settled",
      async () => (await c.sql("SELECT 1 FROM credit_operations WHERE user_id = $1 AND status = 'reserved'", [orgId])).length === 0,
    );
    const spent = await c.sql<{ user_id: string; day_spent: number }>(
      "SELECT user_id, day_spent FROM organisation_members WHERE organisation_id = $1 AND role = 'member'",
      [orgId],
    );
    expect(spent.every((m) => m.day_spent <= 150)).toBe(true);
    const charges = await c.sql<{ member_id: string; sum: string }>(
      "SELECT member_id, SUM(amount) AS sum FROM credit_operations WHERE user_id = $1 AND kind = 'charge' GROUP BY member_id",
      [orgId],
    );
    for (const m of spent) expect(Number(charges.find((x) => x.member_id === m.user_id)?.sum ?? 0)).toBe(m.day_spent);
    const [bal] = await c.sql<{ subscription_credits: number }>("SELECT subscription_credits FROM credit_balances WHERE user_id = $1", [
      orgId,
    ]);
    expect(bal.subscription_credits).toBe(0);
    await expectLedgerAddsUp(c, orgId);
  });

  it("an organisation's daily budget holds across the instances: 4 members and a service key, 60 concurrent calls, exactly 30 answered; a raise made on one instance holds on all; each budget alert fires and is mailed once", async () => {
    const owner = await signedIn(c, `budget-owner-${viaPgBouncer}@example.com`);
    const created = await owner.client.json<{ organisation: { id: string } }>("/api/orgs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: `Budget ${viaPgBouncer}` }),
    });
    expect(created.status).toBe(200);
    const orgId = created.body.organisation.id;
    const members: Array<{ client: Client; id: string }> = [];
    for (let i = 0; i < 4; i++) {
      const m = await signedIn(c, `budget-member${i}-${viaPgBouncer}@example.com`);
      await c.sql("INSERT INTO organisation_members (organisation_id, user_id, role, updated_at) VALUES ($1, $2, 'member', now())", [
        orgId,
        m.id,
      ]);
      members.push(m);
    }
    const key = await owner.client.json<{ secret: string }>("/api/keys", {
      method: "POST",
      headers: { "content-type": "application/json", "x-account-id": orgId },
      body: JSON.stringify({ name: "service", service: true }),
    });
    expect(key.status).toBe(200);
    await setCredits(c, orgId, 10_000);
    const patch = (body: unknown) =>
      owner.client.fetch(`/api/orgs/${orgId}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await patch({ dailyBudget: 450 })).status).toBe(200);
    const burst = (n: number) =>
      Promise.all(
        Array.from({ length: n }, (_, i) =>
          i % 5 === 4
            ? fetch(`${c.url}/v1/chat/completions`, {
                method: "POST",
                headers: { "content-type": "application/json", authorization: `Bearer ${key.body.secret}` },
                body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }], max_tokens: 16 }),
              }).then((r) => r.status)
            : members[i % 5].client
                .fetch("/api/ai/chat", {
                  method: "POST",
                  headers: { "content-type": "application/json", "x-account-id": orgId },
                  body: JSON.stringify({ messages: [{ role: "user", content: "hello" }] }),
                })
                .then((r) => r.status),
        ),
      );
    const first = await burst(60);
    expect(first.every((s) => s === 200 || s === 429)).toBe(true);
    const settledSpend = async () =>
      Number(
        (
          await c.sql<{ sum: string }>(
            "SELECT COALESCE(SUM(amount), 0) AS sum FROM credit_operations WHERE user_id = $1 AND kind = 'charge' AND status = 'settled'",
            [orgId],
          )
        )[0].sum,
      );
    await waitUntil(
      "every charge to be settled",
      async () => (await c.sql("SELECT 1 FROM credit_operations WHERE user_id = $1 AND status = 'reserved'", [orgId])).length === 0,
    );
    // /v1's max_tokens keeps its quote at the flat price: every answered call is 15 credits.
    expect(await settledSpend()).toBeLessThanOrEqual(450);
    const answered = first.filter((s) => s === 200).length;
    expect(answered * 15).toBe(await settledSpend());
    expect(answered).toBe(30);
    // Raised through the balancer (one instance); the next burst on all three is held to the new budget.
    expect((await patch({ dailyBudget: 600 })).status).toBe(200);
    const second = await burst(20);
    expect(second.filter((s) => s === 200)).toHaveLength(10);
    await waitUntil(
      "the four budget alerts",
      async () => (await c.sql("SELECT 1 FROM alert_firings WHERE account_id = $1", [orgId])).length >= 4,
    );
    await new Promise((r) => setTimeout(r, 500));
    const firings = await c.sql<{ alert: string; period: string }>(
      "SELECT alert, period FROM alert_firings WHERE account_id = $1 ORDER BY period, alert",
      [orgId],
    );
    expect(firings.map((f) => `${f.alert}@${f.period.split("@")[1]}`)).toEqual([
      "team:day:100@450",
      "team:day:80@450",
      "team:day:100@600",
      "team:day:80@600",
    ]);
    const ownerEmail = `budget-owner-${viaPgBouncer}@example.com`;
    await waitUntil(
      "the owner's four alert mails",
      async () => c.resend.sent.filter((m) => [m.body.to].flat().includes(ownerEmail)).length >= 4,
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(c.resend.sent.filter((m) => [m.body.to].flat().includes(ownerEmail))).toHaveLength(4);
    await expectLedgerAddsUp(c, orgId);
  });

  it("count limits hold across the instances: 20 concurrent key creations at 47 leave exactly 50; 5 concurrent organisations at 18 owned leave exactly 20", async () => {
    const person = await signedIn(c, `limits-${viaPgBouncer}@example.com`);
    const post = (path: string, body: unknown) =>
      person.client.fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    for (let i = 0; i < 47; i++) expect((await post("/api/keys", { name: `k${i}` })).status).toBe(200);
    const keys = await Promise.all(Array.from({ length: 20 }, (_, i) => post("/api/keys", { name: `burst${i}` }).then((r) => r.status)));
    expect(keys.filter((s) => s === 200)).toHaveLength(3);
    expect(keys.every((s) => s === 200 || s === 403)).toBe(true);
    const [k] = await c.sql<{ n: number }>("SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL", [
      person.id,
    ]);
    expect(k.n).toBe(50);
    for (let i = 0; i < 18; i++) expect((await post("/api/orgs", { name: `Limits ${i}` })).status).toBe(200);
    const orgs = await Promise.all(Array.from({ length: 5 }, (_, i) => post("/api/orgs", { name: `Burst ${i}` }).then((r) => r.status)));
    expect(orgs.filter((s) => s === 200)).toHaveLength(2);
    const [o] = await c.sql<{ n: number }>("SELECT count(*)::int AS n FROM organisation_members WHERE user_id = $1 AND role = 'owner'", [
      person.id,
    ]);
    expect(o.n).toBe(20);
  });

  it("a key revoked with its maker's removal on one instance never charges on another, though its maker is re-admitted within its cache time", async () => {
    const owner = await signedIn(c, `revoke-owner-${viaPgBouncer}@example.com`);
    const created = await owner.client.fetch("/api/orgs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: `Revocation ${viaPgBouncer}` }),
    });
    const orgId = ((await created.json()) as { organisation: { id: string } }).organisation.id;
    const m = await signedIn(c, `revoke-member-${viaPgBouncer}@example.com`);
    const addMember = () =>
      c.sql("INSERT INTO organisation_members (organisation_id, user_id, role, updated_at) VALUES ($1, $2, 'member', now())", [
        orgId,
        m.id,
      ]);
    await addMember();
    await setCredits(c, orgId, 1_000);
    const made = await m.client.fetch("/api/keys", {
      method: "POST",
      headers: { "content-type": "application/json", "x-account-id": orgId },
      body: JSON.stringify({ name: "on another instance" }),
    });
    expect(made.status).toBe(200);
    const { secret } = (await made.json()) as { secret: string };
    const completion = (baseUrl: string) =>
      fetch(`${baseUrl}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }], max_tokens: 10 }),
      });
    // Instance 1 caches the key as active.
    expect((await completion(c.instances[1].baseUrl)).status).toBe(200);
    const ownerOnFirst = new Client(c.instances[0].baseUrl);
    await ownerOnFirst.signIn(`revoke-owner-${viaPgBouncer}@example.com`);
    const removed = await ownerOnFirst.fetch(`/api/orgs/${orgId}/members/${m.id}`, { method: "DELETE" });
    expect(removed.status).toBe(200);
    await addMember();
    const [before] = await c.sql<{ subscription_credits: number }>("SELECT subscription_credits FROM credit_balances WHERE user_id = $1", [
      orgId,
    ]);
    const again = await completion(c.instances[1].baseUrl);
    expect(again.status).toBe(401);
    const [after] = await c.sql<{ subscription_credits: number }>("SELECT subscription_credits FROM credit_balances WHERE user_id = $1", [
      orgId,
    ]);
    expect(after.subscription_credits).toBe(before.subscription_credits);
    await expectLedgerAddsUp(c, orgId);
  });

  it("32 concurrent charges over the instances crossing 80% and 100% at once fire each alert exactly once, emailed once", async () => {
    const email = `alerts-${viaPgBouncer}@example.com`;
    const { client, id } = await signedIn(c, email);
    await setCredits(c, id, 16 * 15);
    const results = await Promise.all(
      Array.from({ length: 32 }, () =>
        client.fetch("/api/ai/chat", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ messages: [{ role: "user", content: "hello" }] }),
        }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(
      statuses.filter((s) => s === 200),
      `statuses: ${statuses.join(",")}`,
    ).toHaveLength(16);
    await waitUntil(
      "the four alerts to fire",
      async () => (await c.sql("SELECT 1 FROM alert_firings WHERE account_id = $1", [id])).length >= 4,
    );
    await waitUntil("their four emails to go out", async () => c.resend.sent.filter((m) => [m.body.to].flat().includes(email)).length >= 4);
    await new Promise((r) => setTimeout(r, 500));
    const firings = await c.sql<{ alert: string }>("SELECT alert FROM alert_firings WHERE account_id = $1 ORDER BY alert", [id]);
    expect(firings.map((f) => f.alert)).toEqual(["allocation:100", "allocation:80", "depleted", "low"]);
    expect(c.resend.sent.filter((m) => [m.body.to].flat().includes(email))).toHaveLength(4);
    const deliveries = await c.sql<{ status: string }>(
      "SELECT d.status FROM outbound_deliveries d JOIN outbound_events e ON e.id = d.event_id WHERE e.account_id = $1",
      [id],
    );
    expect(deliveries.map((d) => d.status)).toEqual(["delivered", "delivered", "delivered", "delivered"]);
  });

  it("caps one user's AI requests in progress across the instances: the 65th is refused whichever instance gets it, admitted once one ends", async () => {
    const { client, id } = await signedIn(c, `cap-${viaPgBouncer}@example.com`);
    await setCredits(c, id, 10_000);
    const before = c.stub.count("chat");
    c.stub.next("chat", { kind: "hang" }, 64);
    const chat = (signal?: AbortSignal) =>
      client.fetch("/api/ai/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: "wait" }] }),
        signal,
      });
    const aborts = Array.from({ length: 64 }, () => new AbortController());
    const pending = aborts.map((a) => chat(a.signal).catch(() => null));
    const deadline = Date.now() + 15_000;
    while (c.stub.count("chat") - before < 64 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(c.stub.count("chat") - before).toBe(64);
    // The 64 are spread over the three instances and the first one's two processes (each charge names its process).
    const held = await c.sql<{ instance_id: string }>(
      "SELECT DISTINCT instance_id FROM credit_operations WHERE user_id = $1 AND status = 'reserved'",
      [id],
    );
    expect(held).toHaveLength(c.processes);
    // Three more, one per instance behind the round-robin: each refused, nothing reaches the provider.
    for (let i = 0; i < 3; i++) {
      const refused = await chat();
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: string }).error).toContain("at most 64 at once");
    }
    expect(c.stub.count("chat") - before).toBe(64);
    // One ends (its client leaves): a new request is admitted.
    aborts[0].abort();
    let admitted = 0;
    for (let i = 0; i < 50 && admitted !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      admitted = (await chat()).status;
    }
    expect(admitted).toBe(200);
    for (const a of aborts) a.abort();
    await Promise.all(pending);
    const until = Date.now() + 15_000;
    while (
      (await c.sql("SELECT 1 FROM credit_operations WHERE user_id = $1 AND status = 'reserved'", [id])).length > 0 &&
      Date.now() < until
    )
      await new Promise((r) => setTimeout(r, 100));
    await expectLedgerAddsUp(c, id);
  });

  it("shares one rate-limit window: the 6th email of a user in the hour is refused whichever instance gets it", async () => {
    const { client } = await signedIn(c, `limits-${viaPgBouncer}@example.com`);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await client.fetch("/api/email/send", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ to: `limits-${viaPgBouncer}@example.com`, subject: `note ${i}`, type: "notification", text: "hello" }),
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
  });

  it("never runs a cron job twice at once, called on all three instances at the same moment", async () => {
    const runs = await Promise.all(
      c.instances.map((s) =>
        fetch(`${s.baseUrl}/api/cron/expire-bonus-credits`, { method: "POST", headers: { authorization: `Bearer ${CRON_SECRET}` } }).then(
          (r) => r.json() as Promise<{ success: boolean }>,
        ),
      ),
    );
    expect(runs.filter((r) => r.success).length).toBeGreaterThanOrEqual(1);
    const rows = await c.sql<{ started_at: Date; finished_at: Date | null; status: string }>(
      "SELECT started_at, finished_at, status FROM cron_runs WHERE job = 'expire-bonus-credits' AND status <> 'skipped' ORDER BY started_at",
    );
    for (let i = 1; i < rows.length; i++)
      expect(rows[i].started_at.getTime()).toBeGreaterThanOrEqual((rows[i - 1].finished_at as Date).getTime());
    expect(rows.length + (await c.sql("SELECT 1 FROM cron_runs WHERE job = 'expire-bonus-credits' AND status = 'skipped'")).length).toBe(3);
  });

  it("a lock, and then a deletion, made through one instance reach the others within 5 seconds", async () => {
    const email = `lock-${viaPgBouncer}@example.com`;
    const { id } = await signedIn(c, email);
    const direct = c.instances.map((s) => {
      const client = new Client(s.baseUrl);
      return client;
    });
    for (const client of direct) await client.signIn(email);
    // Every instance has seen (and cached) the account as active.
    for (const client of direct)
      expect(
        (
          await client.fetch("/api/credits/preferences", {
            method: "PATCH",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ bonusCreditsAutoUse: true }),
          })
        ).status,
      ).toBe(200);
    const lock = await fetch(`${c.instances[0].baseUrl}/api/admin/users/${id}/lock`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ reason: "instances suite" }),
    });
    expect(lock.status).toBe(200);
    const refusedWithin = async (
      client: Client,
      status: number,
      init: RequestInit & { headers?: Record<string, string> },
      path: string,
    ) => {
      const started = Date.now();
      while (Date.now() - started < 7_000) {
        if ((await client.fetch(path, init)).status === status) return Date.now() - started;
        await new Promise((r) => setTimeout(r, 100));
      }
      return Infinity;
    };
    const write = {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ bonusCreditsAutoUse: false }),
    };
    const lockDelays = await Promise.all(direct.map((client) => refusedWithin(client, 403, write, "/api/credits/preferences")));
    expect(Math.max(...lockDelays)).toBeLessThanOrEqual(5_500);

    // The identity provider deletes the user: its webhook reaches one instance.
    await c.sql("UPDATE users SET external_id = $2 WHERE id = $1", [id, `ext-${id}`]);
    const at = new Date();
    const event = JSON.stringify({ type: "user.deleted", data: { id: `ext-${id}`, deleted: true } });
    const msgId = `msg_del_${id}`;
    const deleted = await fetch(`${c.instances[0].baseUrl}/api/webhooks/identity`, {
      method: "POST",
      headers: { "content-type": "application/json", ...svixHeaders(IDENTITY_SECRET, event, { id: msgId, at }) },
      body: event,
    });
    expect(deleted.status).toBe(200);
    expect(await c.sql("SELECT 1 FROM users WHERE id = $1", [id])).toEqual([]);
    const deleteDelays = await Promise.all(direct.map((client) => refusedWithin(client, 401, { method: "GET" }, "/api/user/status")));
    expect(Math.max(...deleteDelays)).toBeLessThanOrEqual(5_500);
  });

  it("48 concurrent streams over the instances, each cut by its client at another point: all settled by their own instance, the ledger adds up", async () => {
    const { client, id } = await signedIn(c, `cut-streams-${viaPgBouncer}@example.com`);
    await setCredits(c, id, 10_000);
    c.stub.chunkDelayMs = 5;
    const text = Array.from({ length: 30 }, (_, i) => `w${i}`).join(" ");
    for (let i = 0; i < 48; i++) c.stub.next("stream", { kind: "reply", text });
    await Promise.all(
      Array.from({ length: 48 }, async (_, i) => {
        const abort = new AbortController();
        const res = await client.fetch("/api/ai/stream", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ messages: [{ role: "user", content: `cut ${i}` }] }),
          signal: abort.signal,
        });
        expect(res.status).toBe(200);
        const reader = (res.body as ReadableStream<Uint8Array>).getReader();
        for (let n = 0; i % 6 === 5 || n < i % 6; n++) if ((await reader.read()).done) break;
        abort.abort();
        await reader.cancel().catch(() => undefined);
      }),
    );
    c.stub.chunkDelayMs = 0;
    const deadline = Date.now() + 10_000;
    while (
      (await c.sql("SELECT 1 FROM credit_operations WHERE user_id = $1 AND status = 'reserved'", [id])).length > 0 &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 100));
    const ops = await c.sql<{ status: string; amount: number; instance_id: string }>(
      "SELECT status, amount, instance_id FROM credit_operations WHERE user_id = $1 AND kind = 'charge'",
      [id],
    );
    expect(ops).toHaveLength(48);
    expect(ops.every((o) => o.status === "settled")).toBe(true);
    // Flat: a stream whose text reached its client costs 20; one cut before that, what it used (at least 1).
    expect(ops.every((o) => o.amount >= 1 && o.amount <= 20)).toBe(true);
    expect(ops.filter((o) => o.amount === 20).length).toBeGreaterThanOrEqual(40);
    expect(new Set(ops.map((o) => o.instance_id)).size).toBe(c.processes);
    await expectLedgerAddsUp(c, id);
  });

  it("an instance killed mid-charge leaves a reservation the cleanup refunds once its heartbeat is lost, never while it lives", async () => {
    const { id } = await signedIn(c, `crash-${viaPgBouncer}@example.com`);
    await setCredits(c, id, 100);
    const victim = c.instances[c.instances.length - 1];
    const client = new Client(victim.baseUrl);
    await client.signIn(`crash-${viaPgBouncer}@example.com`);
    c.stub.next("chat", { kind: "hang" });
    const callsBefore = c.stub.count("chat");
    const pending = client
      .fetch("/api/ai/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: "never answered" }] }),
      })
      .catch(() => null);
    const deadline = Date.now() + 10_000;
    while (c.stub.count("chat") === callsBefore && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(
      (await c.sql<{ status: string }>("SELECT status FROM credit_operations WHERE user_id = $1 AND kind = 'charge'", [id])).map(
        (o) => o.status,
      ),
    ).toEqual(["reserved"]);
    // While the victim is alive, its charge is never swept, however old: it may still be answering.
    await c.sql("UPDATE credit_operations SET created_at = now() - interval '2 hours' WHERE user_id = $1 AND status = 'reserved'", [id]);
    const early = await fetch(`${c.instances[0].baseUrl}/api/cron/check-trials`, {
      method: "POST",
      headers: { authorization: `Bearer ${CRON_SECRET}` },
    });
    expect(early.status).toBe(200);
    expect(
      (await c.sql<{ status: string }>("SELECT status FROM credit_operations WHERE user_id = $1 AND kind = 'charge'", [id])).map(
        (o) => o.status,
      ),
    ).toEqual(["reserved"]);
    process.kill(victim.pid, "SIGKILL");
    await pending;
    // Its heartbeat stops: once it is older than 90 seconds (aged here), the daily housekeeping on a survivor refunds the charge.
    await c.sql(
      "UPDATE server_instances SET heartbeat_at = now() - interval '5 minutes' WHERE id = (SELECT instance_id FROM credit_operations WHERE user_id = $1 AND kind = 'charge')",
      [id],
    );
    const sweep = await fetch(`${c.instances[0].baseUrl}/api/cron/check-trials`, {
      method: "POST",
      headers: { authorization: `Bearer ${CRON_SECRET}` },
    });
    expect(sweep.status).toBe(200);
    const ops = await c.sql<{ status: string }>("SELECT status FROM credit_operations WHERE user_id = $1 AND kind = 'charge'", [id]);
    expect(ops.map((o) => o.status)).toEqual(["refunded"]);
    const [b] = await c.sql<{ subscription_credits: number }>("SELECT subscription_credits FROM credit_balances WHERE user_id = $1", [id]);
    expect(b.subscription_credits).toBe(100);
    await expectLedgerAddsUp(c, id);
    // A second sweep changes nothing.
    await fetch(`${c.instances[0].baseUrl}/api/cron/check-trials`, { method: "POST", headers: { authorization: `Bearer ${CRON_SECRET}` } });
    expect(
      (await c.sql<{ n: string }>("SELECT COUNT(*) AS n FROM credit_transactions WHERE user_id = $1 AND type = 'refund'", [id]))[0].n,
    ).toBe("1");
  });
});

/**
 * Outbound delivery across two instances, with a slow receiver: one delivery in flight per endpoint
 * however many instances and cron calls run, each event once and in order, and other accounts'
 * events not held up. In the development app environment, since production refuses loopback
 * receivers (OUTBOUND_WEBHOOKS_ALLOW_PRIVATE applies outside production only).
 */
describe("outbound webhooks over two instances", () => {
  let c: Cluster;
  beforeAll(async () => {
    c = await startCluster({ viaPgBouncer: false, instances: 2, env: { APP_ENV: "development", OUTBOUND_WEBHOOKS_ALLOW_PRIVATE: "true" } });
  }, 300_000);
  afterAll(async () => {
    await c?.stop();
  });

  it("a slow endpoint with a backlog gets one delivery at a time, each event once and in order, while ten other accounts' events arrive within seconds", async () => {
    const slow = await startWebhookReceiver();
    const fast = await startWebhookReceiver();
    try {
      const owner = await signedIn(c, "slow-endpoint@example.com");
      const post = (client: Client, path: string, body?: unknown) =>
        client.json<{ endpoint: { id: string } }>(path, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const created = await post(owner.client, "/api/webhook-endpoints", { url: slow.url, events: ["key.revoked"] });
      expect(created.status).toBe(200);
      const endpointId = created.body.endpoint.id;
      slow.answerAfter(2_500);
      for (let i = 0; i < 6; i++) expect((await post(owner.client, `/api/webhook-endpoints/${endpointId}/test`)).status).toBe(200);
      // The cron on both instances meanwhile (the balancer alternates), twice each.
      const cron = () =>
        fetch(`${c.url}/api/cron/deliver-webhooks`, { method: "POST", headers: { authorization: `Bearer ${CRON_SECRET}` } });
      const crons = Promise.all([cron(), cron(), cron(), cron()]);
      // Ten other accounts' test events, sent while the slow backlog is being worked through.
      await new Promise((r) => setTimeout(r, 1_000));
      const started = Date.now();
      for (let i = 0; i < 10; i++) {
        const other = await signedIn(c, `fast-endpoint-${i}@example.com`);
        const e = await post(other.client, "/api/webhook-endpoints", { url: fast.url, events: ["key.revoked"] });
        expect((await post(other.client, `/api/webhook-endpoints/${e.body.endpoint.id}/test`)).status).toBe(200);
      }
      await waitUntil("ten other accounts' events", async () => fast.received.length >= 10, 5_000 + (Date.now() - started));
      expect(Date.now() - started).toBeLessThan(15_000);
      await crons;
      await waitUntil("the six slow deliveries", async () => slow.received.length >= 6, 60_000);
      await new Promise((r) => setTimeout(r, 3_000));
      expect(slow.inFlight().max).toBe(1);
      const ids = slow.received.map((r) => r.headers["webhook-id"]);
      expect(new Set(ids).size).toBe(6);
      expect(ids).toHaveLength(6);
      const rows = await c.sql<{ id: string; attempts: number; status: string }>(
        "SELECT e.id, d.attempts, d.status FROM outbound_deliveries d JOIN outbound_events e ON e.id = d.event_id WHERE d.endpoint_id = $1 ORDER BY e.seq",
        [endpointId],
      );
      expect(rows.map((r) => r.id)).toEqual(ids);
      expect(rows.every((r) => r.attempts === 1 && r.status === "delivered")).toBe(true);
    } finally {
      await slow.close();
      await fast.close();
    }
  }, 180_000);
});
