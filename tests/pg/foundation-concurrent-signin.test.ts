import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { checkRateLimit } from "@/lib/ratelimit";
import { ensureUser } from "@/lib/users/ensure-user";
import { useFreshPostgres } from "@/tests/helpers/pg";

await useFreshPostgres();

/** On a real PostgreSQL (a pool of connections, truly concurrent), races the foundation must win. */
describe("PostgreSQL concurrency", () => {
  it("concurrent first sign-ins and identity webhooks for one email create one user with credits once", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        ensureUser(i % 4 === 0 ? { email: "pg-race@example.com", externalId: "user_pg_race" } : { email: "PG-Race@example.com" }),
      ),
    );
    expect(new Set(results.map((r) => r.user.id)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const prisma = await db();
    const user = await prisma.user.findUniqueOrThrow({ where: { email: "pg-race@example.com" } });
    expect(await prisma.creditTransaction.count({ where: { userId: user.id } })).toBe(1);
    expect((await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } })).subscriptionCredits).toBe(200);
  });

  it("the database rate-limit store counts concurrent checks exactly", async () => {
    const now = Date.UTC(2031, 0, 1, 3);
    const results = await Promise.all(Array.from({ length: 40 }, () => checkRateLimit("payments", { userId: "pg-rl" }, { nowMs: now })));
    expect(results.filter((r) => r?.allowed)).toHaveLength(20);
    expect(new Set(results.map((r) => r?.remaining)).size).toBe(20);
  });
});
