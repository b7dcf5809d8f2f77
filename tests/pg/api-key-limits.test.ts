import { afterAll, describe, expect, it } from "vitest";
import * as chat from "@/app/v1/chat/completions/route";
import { keySpend } from "@/lib/api-keys/key-spend";
import { closeDb, db, dbKind } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { useFreshPostgres } from "@/tests/helpers/pg";
import { balanceOf, setBalance, useStubProvider } from "@/tests/integration/ai/ai-test-kit";
import { userWithKey, v1 } from "@/tests/integration/api-keys/key-test-kit";
import { expectLedgerBalances } from "@/tests/integration/credits/invariant";

/**
 * A key's budget and requests-per-minute under 50 concurrent /v1 calls on a real PostgreSQL: the
 * reservations count against the budget as they are made, so the key never spends past it, however
 * the calls interleave; the per-minute limit admits exactly its number.
 */
process.env.DATABASE_POOL_MAX = "32";
await useFreshPostgres();
const { stub, restore } = await useStubProvider();
// One key's 50 calls at once all reach the budget and per-minute checks: the cap on AI requests in
// progress (tests/pg/ai-slots.test.ts) is raised past them.
const undo = setEnv({ RATE_LIMIT_ENABLED: "true", AI_MAX_CONCURRENT_PER_USER: "100" });
afterAll(async () => {
  undo();
  restore();
  await stub.close();
  await closeDb();
});

const CALLS = 50;

/** 10,000 credits with their ledger row, this month's allocation already applied. */
async function fund(userId: string) {
  const prisma = await db();
  await setBalance(userId, 10_000);
  await prisma.creditBalance.update({ where: { userId }, data: { resetAt: new Date() } });
  await prisma.creditTransaction.create({
    data: { userId, amount: 10_000 - (await ledgerSum(userId)), balanceAfter: 10_000, type: "adjustment", operation: "test_setup" },
  });
}

async function ledgerSum(userId: string): Promise<number> {
  const sum = await (await db()).creditTransaction.aggregate({ where: { userId, bonusPurchaseId: null }, _sum: { amount: true } });
  return sum._sum.amount ?? 0;
}
const hello = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] };

describe("API key limits under concurrency (PostgreSQL)", () => {
  it("runs on PostgreSQL", async () => {
    expect(await dbKind()).toBe("postgres");
  });

  it(`${CALLS} concurrent calls on a key with a 200-credit budget: 13 charged (195 credits), the rest refused 429, never over`, async () => {
    const { user, secret, key } = await userWithKey({ budget: { credits: 200, period: "month" } }, "budget-pg@example.com");
    await fund(user.id);
    const results = await Promise.all(Array.from({ length: CALLS }, () => v1(chat.POST, "/v1/chat/completions", secret, { body: hello })));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    expect(ok.length + refused.length).toBe(CALLS);
    expect(ok).toHaveLength(13);
    expect(refused.every((r) => r.body.error.code === "budget_exceeded")).toBe(true);
    const row = await (await db()).apiKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(row.windowSpent).toBe(195);
    expect((await keySpend([key.id])).get(key.id)).toBe(195);
    expect(await balanceOf(user.id)).toBe(10_000 - 195);
    const charges = await (await db()).creditOperation.findMany({ where: { apiKeyId: key.id, kind: "charge" } });
    expect(charges).toHaveLength(13);
    expect(charges.every((c) => c.status === "settled")).toBe(true);
    expect(stub.count("chat")).toBe(13);
    await expectLedgerBalances(user.id);
  });

  it(`${CALLS} concurrent calls on a key limited to 10 requests per minute: exactly 10 answered`, async () => {
    const { user, secret } = await userWithKey({ rpm: 10 }, "rpm-pg@example.com");
    await fund(user.id);
    stub.reset();
    const results = await Promise.all(Array.from({ length: CALLS }, () => v1(chat.POST, "/v1/chat/completions", secret, { body: hello })));
    const statuses = results.map((r) => r.status);
    // A minute boundary in the middle of the burst would open a second window: 10 more at most.
    const answered = statuses.filter((s) => s === 200).length;
    expect([10, 20]).toContain(answered);
    expect(statuses.filter((s) => s === 429).length).toBe(CALLS - answered);
    expect(
      results
        .filter((r) => r.status === 429)
        .every((r) => r.body.error.code === "rate_limit_exceeded" && Number(r.headers.get("retry-after")) > 0),
    ).toBe(true);
    expect(await balanceOf(user.id)).toBe(10_000 - 15 * answered);
  });
});
