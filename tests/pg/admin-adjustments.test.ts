import { describe, expect, it } from "vitest";
import { adjustUserCredits } from "@/lib/admin/adjust-user-credits";
import { db, dbKind } from "@/lib/db/client";
import { ensureUser } from "@/lib/users/ensure-user";
import { useFreshPostgres } from "@/tests/helpers/pg";

/**
 * Operator adjustments on a real PostgreSQL with a pool of connections: 20 concurrent adjustments
 * with the same idempotency key apply once (one ledger row, one audit row, one balance change), and
 * 20 with different keys that together would take the balance below zero never do.
 */
process.env.DATABASE_POOL_MAX = "20";
await useFreshPostgres();

const operator = { id: null, label: "api-token" };

describe("operator credit adjustments under concurrency (PostgreSQL)", () => {
  it("runs on PostgreSQL", async () => {
    expect(await dbKind()).toBe("postgres");
  });

  it("applies 20 concurrent adjustments with the same key exactly once", async () => {
    const { user } = await ensureUser({ email: `pg-adjust-${crypto.randomUUID()}@example.com` });
    const prisma = await db();
    const before = (await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } })).subscriptionCredits;
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        adjustUserCredits({
          operator,
          userId: user.id,
          amount: 250,
          bucket: "subscription",
          reason: "Concurrent goodwill",
          idempotencyKey: "pg-same-key",
          requestId: null,
        }),
      ),
    );
    expect(results.filter((r) => r.applied)).toHaveLength(1);
    expect(new Set(results.map((r) => r.operationId)).size).toBe(1);
    expect((await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } })).subscriptionCredits).toBe(before + 250);
    expect(await prisma.creditTransaction.count({ where: { userId: user.id, type: "adjustment" } })).toBe(1);
    expect(await prisma.adminAction.count({ where: { targetId: user.id } })).toBe(1);
  });

  it("never goes below zero: 20 concurrent removals of 30 from 200 credits apply 6 times", async () => {
    const { user } = await ensureUser({ email: `pg-floor-${crypto.randomUUID()}@example.com` });
    const prisma = await db();
    await prisma.creditBalance.update({ where: { userId: user.id }, data: { subscriptionCredits: 200 } });
    const settled = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        adjustUserCredits({
          operator,
          userId: user.id,
          amount: -30,
          bucket: "subscription",
          reason: "Clawback",
          idempotencyKey: `pg-floor-${i}`,
          requestId: null,
        }),
      ),
    );
    expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(6);
    for (const s of settled) if (s.status === "rejected") expect((s.reason as { code?: string }).code).toBe("bad_request");
    expect((await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } })).subscriptionCredits).toBe(20);
    expect(await prisma.creditTransaction.count({ where: { userId: user.id, type: "adjustment" } })).toBe(6);
    expect(await prisma.adminAction.count({ where: { targetId: user.id } })).toBe(6);
  });
});
