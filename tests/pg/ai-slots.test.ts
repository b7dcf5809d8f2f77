import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import * as chat from "@/app/v1/chat/completions/route";
import { closeDb, db, dbKind } from "@/lib/db/client";
import { reserveCredits } from "@/lib/credits";
import { releaseSlotSoon, type ChargeSlot } from "@/lib/db/ai-slots";
import { databaseStore } from "@/lib/ratelimit/database-store";
import { acquireAiSlot, renewHeldSlots, SLOT_LEASE_MS } from "@/lib/ratelimit/ai-slot/acquire-ai-slot";
import { setEnv } from "@/tests/helpers/env";
import { useFreshPostgres } from "@/tests/helpers/pg";
import { useStubProvider } from "@/tests/integration/ai/ai-test-kit";
import { userWithKey, v1 } from "@/tests/integration/api-keys/key-test-kit";

/**
 * The per-user cap on AI requests in progress on a real PostgreSQL with a pool of connections: the
 * acquisition statement serializes a user's slots (an advisory lock), so a burst never takes more
 * than the cap, and 40 concurrent /v1 calls of one user reach the provider 8 at a time.
 */
process.env.DATABASE_POOL_MAX = "32";
await useFreshPostgres();
const { stub, restore } = await useStubProvider();
const undo = setEnv({ RATE_LIMIT_ENABLED: "true", AI_MAX_CONCURRENT_PER_USER: "8" });
afterAll(async () => {
  undo();
  restore();
  await stub.close();
  await closeDb();
});

describe("AI request slots (PostgreSQL)", () => {
  it("runs on PostgreSQL", async () => {
    expect(await dbKind()).toBe("postgres");
  });

  it("takes exactly the cap of 64 acquisitions made at once, and the cap again once they are released", async () => {
    const key = randomUUID();
    const ids = Array.from({ length: 64 }, () => randomUUID());
    const taken = await Promise.all(ids.map((id) => databaseStore.acquireSlot({ key, id, cap: 8, leaseMs: 60_000, nowMs: Date.now() })));
    expect(taken.filter(Boolean)).toHaveLength(8);
    await Promise.all(ids.filter((_, i) => taken[i]).map((id) => databaseStore.releaseSlot(key, id)));
    const again = await Promise.all(
      ids.map((id) => databaseStore.acquireSlot({ key, id: `${id}-2`, cap: 8, leaseMs: 60_000, nowMs: Date.now() })),
    );
    expect(again.filter(Boolean)).toHaveLength(8);
  });

  it("decides each of 16 users' 12 acquisitions made at once on its own: 8 each, in one grouped statement per turn", async () => {
    const users = Array.from({ length: 16 }, () => randomUUID());
    const asks = users.flatMap((key) => Array.from({ length: 12 }, () => ({ key, id: randomUUID() })));
    // Interleaved: every batch mixes users (sorted inside it, so the advisory locks go in one order).
    asks.sort(() => Math.random() - 0.5);
    const taken = await Promise.all(asks.map((a) => databaseStore.acquireSlot({ ...a, cap: 8, leaseMs: 60_000, nowMs: Date.now() })));
    for (const key of users) expect(asks.filter((a, i) => a.key === key && taken[i])).toHaveLength(8);
    const prisma = await db();
    const held = await prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM ai_request_slots WHERE user_id = ANY(${users})`;
    expect(Number(held[0].n)).toBe(16 * 8);
    // Released in grouped deletes: nothing of theirs is left.
    await Promise.all(asks.filter((_, i) => taken[i]).map((a) => databaseStore.releaseSlot(a.key, a.id)));
    const left = await prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM ai_request_slots WHERE user_id = ANY(${users})`;
    expect(Number(left[0].n)).toBe(0);
  });

  it("renews a running call's slot (it outlives its first lease) and not one given back", async () => {
    const key = randomUUID();
    const slot = (id: string, leaseMs: number) => databaseStore.acquireSlot({ key, id, cap: 1, leaseMs, nowMs: Date.now() });
    expect(await slot(`${key}-a`, 300)).toBe(true);
    await databaseStore.renewSlots([{ key, id: `${key}-a` }], 60_000, Date.now());
    await new Promise((r) => setTimeout(r, 400));
    expect(await slot(`${key}-b`, 60_000)).toBe(false);
    await databaseStore.releaseSlot(key, `${key}-a`);
    await databaseStore.renewSlots([{ key, id: `${key}-a` }], 60_000, Date.now());
    expect(await slot(`${key}-b`, 60_000)).toBe(true);
  });

  it("a call's slot taken with its charge is leased for a minute and renewed while the call runs, by one statement for all of the process's slots", async () => {
    const prisma = await db();
    const { user } = await userWithKey();
    const held = await Promise.all([acquireAiSlot(user.id, { store: databaseStore }), acquireAiSlot(user.id, { store: databaseStore })]);
    for (const h of held) await reserveCredits({ userId: user.id, amount: 1, operation: "chat", slot: h.charge });
    const leases = async () =>
      (
        await prisma.$queryRaw<
          { ms: number }[]
        >`SELECT (extract(epoch FROM expires_at - now()) * 1000)::int AS ms FROM ai_request_slots WHERE user_id = ${user.id}`
      ).map((r) => r.ms);
    expect((await leases()).every((ms) => ms <= SLOT_LEASE_MS && ms > SLOT_LEASE_MS - 5_000)).toBe(true);
    await prisma.$executeRaw`UPDATE ai_request_slots SET expires_at = now() + interval '1 second' WHERE user_id = ${user.id}`;
    await renewHeldSlots();
    expect((await leases()).every((ms) => ms > SLOT_LEASE_MS - 5_000)).toBe(true);
    held[0].release();
    await new Promise((r) => setTimeout(r, 50));
    await prisma.$executeRaw`UPDATE ai_request_slots SET expires_at = now() + interval '1 second' WHERE user_id = ${user.id}`;
    await renewHeldSlots();
    expect(await leases()).toHaveLength(1);
    expect((await leases())[0]).toBeGreaterThan(SLOT_LEASE_MS - 5_000);
    held[1].release();
  });

  it("lets a slot lapse at its lease, and frees at once the slots of a process known to be gone", async () => {
    const key = randomUUID();
    const slot = (id: string, leaseMs = 60_000) => databaseStore.acquireSlot({ key, id, cap: 1, leaseMs, nowMs: Date.now() });
    expect(await slot(`${key}-a`, 1)).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(await slot(`${key}-b`)).toBe(true);
    expect(await slot(`${key}-c`)).toBe(false);
    // "b" belongs to a process that stopped: its slot no longer counts.
    const prisma = await db();
    await prisma.$executeRaw`INSERT INTO server_instances (id, host, pid, stopped_at) VALUES ('gone-instance', 'h', 1, now()) ON CONFLICT (id) DO NOTHING`;
    await prisma.$executeRaw`UPDATE ai_request_slots SET instance_id = 'gone-instance' WHERE id = ${`${key}-b`}`;
    expect(await slot(`${key}-d`)).toBe(true);
    await databaseStore.releaseSlot(key, `${key}-d`);
    expect(await slot(`${key}-e`)).toBe(true);
  });

  it("drops lapsed slots only when the count reaches the cap, so an acquisition below it makes no cleanup scan and a user's rows stay at most the cap", async () => {
    const key = randomUUID();
    const slot = (id: string, leaseMs = 60_000) => databaseStore.acquireSlot({ key, id, cap: 3, leaseMs, nowMs: Date.now() });
    const prisma = await db();
    const rows = async () =>
      Number((await prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM ai_request_slots WHERE user_id = ${key}`)[0].n);
    expect(await slot(`${key}-a`, 1)).toBe(true);
    expect(await slot(`${key}-b`, 1)).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    // Two lapsed, under the cap of 3: taken without touching them.
    expect(await slot(`${key}-c`)).toBe(true);
    expect(await rows()).toBe(3);
    // At the cap: the lapsed two are dropped, the call is admitted.
    expect(await slot(`${key}-d`)).toBe(true);
    expect(await rows()).toBe(2);
    expect(await slot(`${key}-e`)).toBe(true);
    expect(await slot(`${key}-f`)).toBe(false);
    expect(await rows()).toBe(3);
  });

  it("lets 8 of 40 concurrent calls of one user reach the provider and refuses the rest with 429, charging nothing for them", async () => {
    const { secret } = await userWithKey({}, "slots-pg@example.com");
    stub.next("chat", { kind: "delay", ms: 500 }, 40);
    const results = await Promise.all(
      Array.from({ length: 40 }, () =>
        v1(chat.POST, "/v1/chat/completions", secret, { body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] } }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    expect(ok.length).toBe(8);
    expect(refused.length).toBe(32);
    expect(refused.every((r) => r.body.error.code === "too_many_concurrent_requests")).toBe(true);
    expect(stub.count("chat")).toBe(8);
  });

  /** Slots of a live process elsewhere (another instance): they count against the user's cap here too. */
  async function heldElsewhere(userId: string, n: number): Promise<void> {
    const prisma = await db();
    await prisma.$executeRaw`INSERT INTO server_instances (id, host, pid, heartbeat_at) VALUES ('other-live-instance', 'h', 2, now())
      ON CONFLICT (id) DO UPDATE SET heartbeat_at = now(), stopped_at = NULL`;
    for (let i = 0; i < n; i++) {
      await prisma.$executeRaw`INSERT INTO ai_request_slots (id, user_id, instance_id, expires_at) VALUES (${randomUUID()}, ${userId}, 'other-live-instance', now() + interval '1 hour')`;
    }
  }
  async function slotsOf(userId: string): Promise<number> {
    const prisma = await db();
    const rows = await prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM ai_request_slots WHERE user_id = ${userId}`;
    return Number(rows[0].n);
  }
  async function chargesOf(userId: string): Promise<number> {
    const prisma = await db();
    const rows = await prisma.$queryRaw<
      { n: bigint }[]
    >`SELECT count(*) AS n FROM credit_operations WHERE user_id = ${userId} AND kind = 'charge'`;
    return Number(rows[0].n);
  }
  const hello = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] };

  it("takes the slot across instances in the charge's own statement: with 5 of 8 held elsewhere, 3 of 8 concurrent calls are answered and 5 refused, uncharged, holding nothing", async () => {
    const { user, secret } = await userWithKey({}, "slots-elsewhere@example.com");
    await heldElsewhere(user.id, 5);
    const before = stub.count("chat");
    stub.next("chat", { kind: "delay", ms: 300 }, 8);
    const results = await Promise.all(Array.from({ length: 8 }, () => v1(chat.POST, "/v1/chat/completions", secret, { body: hello })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    const refused = results.filter((r) => r.status === 429);
    expect(refused).toHaveLength(5);
    expect(refused.every((r) => r.body.error.code === "too_many_concurrent_requests" && r.headers.get("retry-after") === "1")).toBe(true);
    expect(stub.count("chat") - before).toBe(3);
    expect(await chargesOf(user.id)).toBe(3);
    // The answered calls gave their slots back; the refused never held one: only the other instance's are left.
    const until = Date.now() + 5_000;
    while ((await slotsOf(user.id)) > 5 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(await slotsOf(user.id)).toBe(5);
  });

  it("gives the slot back in the same statement when the charge is refused for its credits: a user without credits holds no slot", async () => {
    const { user, secret } = await userWithKey({}, "slots-broke@example.com");
    const prisma = await db();
    await prisma.$executeRaw`UPDATE credit_balances SET subscription_credits = 0 WHERE user_id = ${user.id}`;
    const before = stub.count("chat");
    const results = await Promise.all(Array.from({ length: 4 }, () => v1(chat.POST, "/v1/chat/completions", secret, { body: hello })));
    // OpenAI's dialect: no credits is 429 insufficient_quota.
    expect(results.map((r) => [r.status, r.body.error.code])).toEqual(Array.from({ length: 4 }, () => [429, "insufficient_quota"]));
    expect(stub.count("chat")).toBe(before);
    expect(await slotsOf(user.id)).toBe(0);
  });

  it("a key with a budget takes its slot alone before its charge: the cap holds across instances there too", async () => {
    const { user, secret } = await userWithKey({ budget: { credits: 1_000_000, period: "month" } }, "slots-budget@example.com");
    await heldElsewhere(user.id, 6);
    const before = stub.count("chat");
    stub.next("chat", { kind: "delay", ms: 300 }, 5);
    const results = await Promise.all(Array.from({ length: 5 }, () => v1(chat.POST, "/v1/chat/completions", secret, { body: hello })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(2);
    expect(results.filter((r) => r.status === 429)).toHaveLength(3);
    expect(stub.count("chat") - before).toBe(2);
    expect(await chargesOf(user.id)).toBe(2);
    const until = Date.now() + 5_000;
    while ((await slotsOf(user.id)) > 6 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(await slotsOf(user.id)).toBe(6);
  });

  it("at exactly the cap, back-to-back calls are never refused", async () => {
    const { user, secret } = await userWithKey({}, "slots-back-to-back@example.com");
    const prisma = await db();
    await prisma.$executeRaw`UPDATE credit_balances SET subscription_credits = 100000 WHERE user_id = ${user.id}`;
    const statuses: number[] = [];
    // 8 workers (the cap) each sending 6 calls one after another: every call finds its worker's last slot given back.
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < 6; i++) statuses.push((await v1(chat.POST, "/v1/chat/completions", secret, { body: hello })).status);
      }),
    );
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(await chargesOf(user.id)).toBe(48);
    const until = Date.now() + 5_000;
    while ((await slotsOf(user.id)) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(await slotsOf(user.id)).toBe(0);
  });

  it("a slot given back is deleted by the next charge's own statement, before it counts (no DELETE of its own needed)", async () => {
    const { user } = await userWithKey({}, "slots-carried@example.com");
    const terms = (id: string) => ({ key: user.id, id, cap: 1, leaseMs: 60_000 });
    // A charge slot as the AI routes hand one to their charge: taken by the reservation's own statement.
    const slotOf = (id: string): ChargeSlot => ({
      terms: terms(id),
      held: false,
      holdAlone: async () => {
        throw new Error("taken with the charge, never alone here");
      },
      refusal: () => Object.assign(new Error("too many AI requests"), { code: "rate_limited" }),
    });
    const reserveHolding = (id: string) => reserveCredits({ userId: user.id, amount: 1, operation: "chat", slot: slotOf(id) });
    const first = randomUUID();
    await reserveHolding(first);
    expect(await slotsOf(user.id)).toBe(1);
    // Given back, and at once (before the gathered DELETE's few ms) a second charge at a cap of 1: it carries the release.
    const released = releaseSlotSoon(first);
    const second = randomUUID();
    await expect(reserveHolding(second)).resolves.toMatchObject({ charged: true });
    await released;
    const prisma = await db();
    const rows = await prisma.$queryRaw<{ id: string }[]>`SELECT id FROM ai_request_slots WHERE user_id = ${user.id}`;
    expect(rows.map((r) => r.id)).toEqual([second]);
    // And at the cap, a third is refused with no charge.
    await expect(reserveHolding(randomUUID())).rejects.toMatchObject({ code: "rate_limited" });
    expect(await chargesOf(user.id)).toBe(2);
  });
});
