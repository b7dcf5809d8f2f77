import { afterAll, describe, expect, it } from "vitest";
import { POST as chatPost } from "@/app/api/ai/chat/route";
import { POST as streamPost } from "@/app/api/ai/stream/route";
import { drainSettlements, refundStaleReservations, reserveCredits, settleReservation } from "@/lib/credits";
import { findModel } from "@/lib/ai/catalog/models";
import { costMicros, creditsForCost } from "@/lib/ai/pricing/price-call";
import { pricingSettings } from "@/lib/ai/pricing/pricing-settings";
import { closeDb, db, dbKind } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, send, signIn } from "@/tests/helpers/http";
import { useFreshPostgres } from "@/tests/helpers/pg";
import { setBalance, useStubProvider } from "@/tests/integration/ai/ai-test-kit";
import { expectLedgerBalances } from "@/tests/integration/credits/invariant";

/**
 * Metered charging under concurrency on a real PostgreSQL: 64 chat calls of mixed sizes at once,
 * each reserved at its worst case and settled at its usage. The ledger adds up to exactly the sum of
 * the calls' computed prices, no balance goes negative, every reservation ends settled or refunded.
 */
process.env.DATABASE_POOL_MAX = "32";
await useFreshPostgres();
const { stub, restore } = await useStubProvider();
// One user's 64 calls at once all reach the ledger: the cap on AI requests in progress is raised past them.
const undoEnv = setEnv({ AI_PRICING_MODE: "metered", CREDIT_VALUE_USD: "0.00001", AI_MARKUP: "1.25", AI_MAX_CONCURRENT_PER_USER: "100" });
afterAll(async () => {
  undoEnv();
  restore();
  await stub.close();
  await closeDb();
});

const CALLS = 64;
const sizes = (i: number) => "tell me about credits ".repeat(1 + ((i * 37) % 400));

async function settledOps(userId: string) {
  return (await db()).creditOperation.findMany({ where: { userId, kind: "charge" } });
}

describe("metered charges under concurrency (PostgreSQL)", () => {
  it("runs on PostgreSQL", async () => {
    expect(await dbKind()).toBe("postgres");
  });

  it("64 concurrent calls of mixed sizes: the ledger equals the sum of their computed prices", async () => {
    const { user, cookie } = await signIn("metered-pg@example.com");
    await setBalance(user.id, 50_000_000);
    const prisma = await db();
    await prisma.creditTransaction.create({
      data: { userId: user.id, amount: 50_000_000 - 200, balanceAfter: 50_000_000, type: "adjustment", operation: "test_setup" },
    });
    const results = await Promise.all(
      Array.from({ length: CALLS }, (_, i) =>
        call(chatPost, {
          path: "/api/ai/chat",
          cookie,
          body: { messages: [{ role: "user", content: sizes(i) }], model: i % 2 ? "gpt-4o" : "gpt-4o-mini", maxTokens: 50 + i * 10 },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(CALLS).fill(200));
    const ops = await settledOps(user.id);
    expect(ops).toHaveLength(CALLS);
    expect(ops.every((o) => o.status === "settled")).toBe(true);
    const s = pricingSettings();
    let expected = 0;
    for (const op of ops) {
      const m = (op.details as { metadata: { promptTokens: number; completionTokens: number } }).metadata;
      const micros = costMicros(findModel(op.model as string) as NonNullable<ReturnType<typeof findModel>>, m);
      // The ledger records the cost rounded up to a whole micro; the price is the exact cost's, rounded once.
      expect(Number(op.costMicros)).toBe(Math.ceil(micros - 1e-6));
      expect(op.amount).toBe(creditsForCost(micros, s));
      expected += op.amount;
    }
    expect(results.reduce((sum, r) => sum + r.body.cost, 0)).toBe(expected);
    const balance = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
    expect(balance.subscriptionCredits).toBe(50_000_000 - expected);
    await expectLedgerBalances(user.id);
  });

  it("64 concurrent calls against a balance that covers a few worst cases: refused calls cost nothing, nothing goes negative", async () => {
    const { user, cookie } = await signIn("metered-pg-tight@example.com");
    // Each gpt-4o call with maxTokens 1,000 is reserved at about 10,000 micros x 1.25 / 10 = 1,250 credits.
    await setBalance(user.id, 6_000);
    const results = await Promise.all(
      Array.from({ length: CALLS }, () =>
        call(chatPost, {
          path: "/api/ai/chat",
          cookie,
          body: { messages: [{ role: "user", content: "Hi" }], model: "gpt-4o", maxTokens: 1000 },
        }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(4);
    expect(results.every((r) => r.status === 200 || r.status === 402)).toBe(true);
    const ops = await settledOps(user.id);
    expect(ops).toHaveLength(ok.length);
    expect(ops.every((o) => o.status === "settled")).toBe(true);
    const charged = ok.reduce((sum, r) => sum + r.body.cost, 0);
    const balance = await (await db()).creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
    expect(balance.subscriptionCredits).toBe(6_000 - charged);
    expect(balance.subscriptionCredits).toBeGreaterThanOrEqual(0);
  });

  it("64 concurrent streams, each cut by its client at another point: every charge settled, none left reserved, the ledger exact", async () => {
    const { user, cookie } = await signIn("metered-pg-cut@example.com");
    await setBalance(user.id, 10_000_000);
    const prisma = await db();
    await prisma.creditTransaction.create({
      data: { userId: user.id, amount: 10_000_000 - 200, balanceAfter: 10_000_000, type: "adjustment", operation: "test_setup" },
    });
    stub.chunkDelayMs = 5;
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ");
    for (let i = 0; i < CALLS; i++) stub.next("stream", { kind: "reply", text: words });
    await Promise.all(
      Array.from({ length: CALLS }, async (_, i) => {
        const client = new AbortController();
        const res = await send(streamPost, {
          path: "/api/ai/stream",
          cookie,
          body: { messages: [{ role: "user", content: `cut ${i}` }], maxTokens: 500 },
          signal: client.signal,
        });
        const reader = (res.body as ReadableStream<Uint8Array>).getReader();
        // Read i % 8 chunks (0: hang up at once), then hang up; every eighth reads to the end.
        for (let n = 0; i % 8 === 7 || n < i % 8; n++) if ((await reader.read()).done) break;
        client.abort();
        await reader.cancel().catch(() => undefined);
      }),
    );
    stub.chunkDelayMs = 0;
    // Cut streams settle as their upstream requests end.
    for (let i = 0; i < 100 && (await prisma.creditOperation.count({ where: { userId: user.id, status: "reserved" } })) > 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    await drainSettlements();
    const ops = await settledOps(user.id);
    expect(ops).toHaveLength(CALLS);
    expect(ops.filter((o) => o.status !== "settled")).toEqual([]);
    const charged = ops.reduce((sum, o) => sum + o.amount, 0);
    expect(ops.every((o) => o.amount >= 1)).toBe(true);
    const balance = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
    expect(balance.subscriptionCredits).toBe(10_000_000 - charged);
    await expectLedgerBalances(user.id);
  });

  it("a settlement racing the sweep (a process that looked gone): each charge ends settled or refunded exactly once, the ledger exact", async () => {
    const { user } = await signIn("metered-pg-race@example.com");
    await setBalance(user.id, 100_000);
    const prisma = await db();
    await prisma.creditTransaction.create({
      data: { userId: user.id, amount: 100_000 - 200, balanceAfter: 100_000, type: "adjustment", operation: "test_setup" },
    });
    const reservations = await Promise.all(
      Array.from({ length: CALLS }, () => reserveCredits({ userId: user.id, amount: 100, operation: "chat" })),
    );
    // Their process looks gone (stopped), and the charges are old enough for the sweep.
    await prisma.$executeRaw`INSERT INTO server_instances (id, host, pid, stopped_at) VALUES ('gone-instance', 'gone', 1, now())`;
    await prisma.$executeRaw`UPDATE credit_operations SET instance_id = 'gone-instance', created_at = now() - interval '10 minutes' WHERE user_id = ${user.id}`;
    const [settled] = await Promise.all([
      Promise.all(reservations.map((r, i) => settleReservation(r, { amount: 10 + (i % 50) }))),
      refundStaleReservations(),
      refundStaleReservations(),
      refundStaleReservations(),
    ]);
    const ops = await settledOps(user.id);
    expect(ops.every((o) => o.status === "settled" || o.status === "refunded")).toBe(true);
    const bySettlement = settled.filter((s) => s.settled).length;
    expect(bySettlement + ops.filter((o) => o.status === "refunded").length).toBe(CALLS);
    const kept = ops.filter((o) => o.status === "settled").reduce((sum, o) => sum + o.amount, 0);
    const refundRows = await prisma.creditTransaction.count({
      where: { userId: user.id, type: "refund", operation: "chat", metadata: { path: ["reason"], equals: "not_settled" } },
    });
    expect(refundRows).toBe(ops.filter((o) => o.status === "refunded").length);
    const balance = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
    expect(balance.subscriptionCredits).toBe(100_000 - kept);
    await expectLedgerBalances(user.id);
  });
});
