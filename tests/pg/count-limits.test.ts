import { afterAll, describe, expect, it } from "vitest";
import * as keys from "@/app/api/keys/route";
import * as orgs from "@/app/api/orgs/route";
import { db, dbKind } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { useFreshPostgres } from "@/tests/helpers/pg";

await useFreshPostgres();
// The count limits, not the request limits, are under test.
const restore = setEnv({ RATE_LIMIT_ENABLED: "false" });
afterAll(restore);

describe("count limits under concurrency on PostgreSQL", () => {
  it("20 concurrent key creations at 47 keys leave exactly 50 (the rest 403)", async () => {
    expect(await dbKind()).toBe("postgres");
    const { user, cookie } = await signIn(`key-limit-${Date.now()}@example.com`);
    for (let i = 0; i < 47; i++) expect((await call(keys.POST, { path: "/api/keys", cookie, body: { name: `k${i}` } })).status).toBe(200);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(keys.POST, { path: "/api/keys", cookie, body: { name: `c${i}` } })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    expect(results.filter((r) => r.status === 403)).toHaveLength(17);
    expect(await (await db()).apiKey.count({ where: { userId: user.id, revokedAt: null } })).toBe(50);
  });

  it("5 concurrent organisation creations at 18 owned leave exactly 20 (the rest 403)", async () => {
    const { user, cookie } = await signIn(`org-limit-${Date.now()}@example.com`);
    for (let i = 0; i < 18; i++)
      expect((await call(orgs.POST, { path: "/api/orgs", cookie, body: { name: `Org ${i}` } })).status).toBe(200);
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => call(orgs.POST, { path: "/api/orgs", cookie, body: { name: `Race ${i}` } })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(2);
    expect(results.filter((r) => r.status === 403)).toHaveLength(3);
    expect(await (await db()).organisationMember.count({ where: { userId: user.id, role: "owner" } })).toBe(20);
  });
});
