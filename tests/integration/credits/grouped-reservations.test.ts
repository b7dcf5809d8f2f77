import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { grantBonusPurchase, reserveCredits } from "@/lib/credits";
import { monthStart } from "@/lib/credits/ledger";
import { runReserveStatement, type ReserveArgs } from "@/lib/credits/reserve-statement";
import { closeDb, db } from "@/lib/db/client";
import { signIn } from "@/tests/helpers/http";
import { expectLedgerBalances, setSubscriptionCredits } from "./invariant";

/**
 * Reservations that arrive while one is being written go out together in one statement
 * (lib/credits/reserve-statement.ts). Each caller still gets exactly its own outcome, and the ledger
 * stays exact.
 */
afterAll(closeDb);

const DAY = 86_400_000;

function outcomeOf(result: PromiseSettledResult<unknown>): string {
  return result.status === "fulfilled" ? "charged" : ((result.reason as { code?: string }).code ?? "error");
}

describe("grouped reservations", () => {
  it("concurrent charges of several users share statements; each gets its own outcome; the ledger is exact", async () => {
    const users = await Promise.all([0, 1, 2].map(async (i) => (await signIn(`grouped-${i}@example.com`)).user.id));
    // User 0 can pay 3 charges of 10, user 1 all 4, user 2 none from subscription but 2 from a bonus purchase.
    await setSubscriptionCredits(users[0], 30);
    await setSubscriptionCredits(users[1], 1_000);
    await setSubscriptionCredits(users[2], 0);
    await grantBonusPurchase({
      userId: users[2],
      credits: 25,
      orderId: "grouped-bonus",
      variantId: "v",
      expiresAt: new Date(Date.now() + 30 * DAY),
    });
    await (await db()).user.update({ where: { id: users[2] }, data: { bonusCreditsAutoUse: true } });

    const calls = users.flatMap((userId) => Array.from({ length: 4 }, () => ({ userId })));
    const results = await Promise.allSettled(calls.map(({ userId }) => reserveCredits({ userId, amount: 10, operation: "grouped_test" })));
    const byUser = users.map((u) =>
      results
        .filter((_, i) => calls[i].userId === u)
        .map(outcomeOf)
        .sort(),
    );
    expect(byUser[0]).toEqual(["charged", "charged", "charged", "insufficient_credits"]);
    expect(byUser[1]).toEqual(["charged", "charged", "charged", "charged"]);
    expect(byUser[2]).toEqual(["charged", "charged", "insufficient_credits", "insufficient_credits"]);
    for (const u of users) await expectLedgerBalances(u);

    // The twelve concurrent reservations went out in at most two statements (the first group is what
    // arrived within one event-loop turn, the next whatever came while it was written): now() is a
    // statement's transaction time, so one statement's plain charges share it.
    const rows = await (await db()).creditTransaction.findMany({ where: { userId: { in: users }, operation: "grouped_test" } });
    expect(rows).toHaveLength(9);
    const plain = rows.filter((r) => r.userId !== users[2]); // a bonus draw's rows carry their own clock time
    expect(plain).toHaveLength(7);
    expect(new Set(plain.map((r) => r.createdAt.getTime())).size).toBeLessThanOrEqual(2);
  });

  it("a batch that fails as a whole is written item by item: only the failing item fails", async () => {
    const { user } = await signIn("grouped-fallback@example.com");
    await setSubscriptionCredits(user.id, 100);
    const args = (metadata: string | null): ReserveArgs => ({
      userId: user.id,
      amount: 5,
      monthStart: monthStart().toISOString(),
      id: randomUUID(),
      operation: "grouped_fallback",
      metadata,
      key: null,
      bonusAlways: false,
    });
    // Four reservations in one group; one of them carries metadata that is not valid JSON.
    const results = await Promise.allSettled([args(null), args("{}"), args("{not json"), args('{"a":1}')].map(runReserveStatement));
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    for (const r of results) if (r.status === "fulfilled") expect(r.value.outcome).toBe("charged");
    const prisma = await db();
    expect((await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } })).subscriptionCredits).toBe(85);
    await expectLedgerBalances(user.id);
  });
});
