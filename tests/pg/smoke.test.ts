import { readMigrations } from "@/lib/db/migrate";
import { describe, expect, it } from "vitest";
import { db, dbKind } from "@/lib/db/client";
import { signIn } from "@/tests/helpers/http";
import { useFreshPostgres } from "@/tests/helpers/pg";

await useFreshPostgres();

describe("PostgreSQL", () => {
  it("runs the app on a real PostgreSQL with the migrations applied", async () => {
    expect(await dbKind()).toBe("postgres");
    const { user } = await signIn("pg-smoke@example.com");
    const prisma = await db();
    const balance = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
    expect(balance.subscriptionCredits).toBe(200);
    const migrations = await prisma.$queryRaw<
      { migration_name: string }[]
    >`SELECT migration_name FROM _prisma_migrations ORDER BY migration_name`;
    // Every migration of prisma/migrations, in order, recorded as Prisma's own runner would.
    expect(migrations.map((m) => m.migration_name)).toEqual(readMigrations().map((m) => m.name));
    expect(migrations.length).toBeGreaterThanOrEqual(7);
  });
});
