import { afterAll, describe, expect, it } from "vitest";
import { authOptions } from "@/lib/auth/options";
import { closeDb, db } from "@/lib/db/client";
import { ensureUser } from "@/lib/users/ensure-user";
import { setEnv } from "@/tests/helpers/env";

afterAll(closeDb);

/** Provider ids as next-auth sees them (it merges a provider's `options` over its defaults). */
const providerIds = () => authOptions().providers.map((p) => (p as { options?: { id?: string } }).options?.id ?? p.id);

/** The dev sign-in's authorize() exactly as next-auth calls it on POST /api/auth/callback/dev. */
function devAuthorize() {
  const provider = authOptions().providers.find((p) => (p as { options?: { id?: string } }).options?.id === "dev") as unknown as {
    options: { authorize: (credentials: Record<string, string>, req: unknown) => Promise<{ id: string; email: string } | null> };
  };
  if (!provider) throw new Error("dev sign-in is not enabled");
  return (email: string) => provider.options.authorize({ email }, {});
}

describe("first sign-in", () => {
  it("concurrent first sign-ins for one email create one user with credits, once", async () => {
    const authorize = devAuthorize();
    const results = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => authorize(i % 2 ? "Race@Example.com" : "race@example.com ")),
      ensureUser({ email: "race@example.com", externalId: "user_race", name: "Racer" }).then((r) => r.user),
    ]);
    const ids = new Set(results.map((r) => r?.id));
    expect(ids.size).toBe(1);
    const prisma = await db();
    const users = await prisma.user.findMany({ where: { email: "race@example.com" } });
    expect(users).toHaveLength(1);
    const [user] = users;
    expect(await prisma.creditBalance.findUnique({ where: { userId: user.id } })).toMatchObject({ subscriptionCredits: 200 });
    const transactions = await prisma.creditTransaction.findMany({ where: { userId: user.id } });
    expect(transactions).toHaveLength(1);
    expect(transactions[0]).toMatchObject({ type: "monthly_reset", amount: 200, balanceAfter: 200 });
  });

  it("signing in again never grants credits twice", async () => {
    const authorize = devAuthorize();
    const first = await authorize("again@example.com");
    const second = await authorize("again@example.com");
    expect(second?.id).toBe(first?.id);
    const prisma = await db();
    expect(await prisma.creditTransaction.count({ where: { userId: first!.id } })).toBe(1);
  });

  it("refuses an invalid email and a locked user; dev sign-in is off in production unless AUTH_DEV_LOGIN=true and AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION=true", async () => {
    const authorize = devAuthorize();
    expect(await authorize("not-an-email")).toBeNull();
    const user = await authorize("locked@example.com");
    const prisma = await db();
    await prisma.user.update({ where: { id: user!.id }, data: { lockedAt: new Date(), lockReason: "test" } });
    expect(await authorize("locked@example.com")).toBeNull();

    const restore = setEnv({ APP_ENV: "production", CRON_SECRET: "c" });
    try {
      expect(providerIds()).not.toContain("dev");
      process.env.AUTH_DEV_LOGIN = "true";
      // Not even then without the second, loudly named switch.
      expect(providerIds()).not.toContain("dev");
      process.env.AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION = "true";
      expect(providerIds()).toContain("dev");
    } finally {
      delete process.env.AUTH_DEV_LOGIN;
      delete process.env.AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION;
      restore();
    }
  });
});
