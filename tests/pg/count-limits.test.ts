import { afterAll, describe, expect, it } from "vitest";
import * as keys from "@/app/api/keys/route";
import * as orgs from "@/app/api/orgs/route";
import * as invites from "@/app/api/orgs/[id]/invites/route";
import { db, dbKind } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { useFreshPostgres } from "@/tests/helpers/pg";
import { actingAs, person, team } from "@/tests/integration/organisations/org-test-kit";

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

  it("concurrent invitations to one address leave exactly one waiting (the member's and the admin's links race)", async () => {
    const t = await team();
    const invitee = await person("invitee");
    const results = await Promise.all(
      (["member", "admin", "member"] as const).map((role, i) =>
        call(invites.POST, {
          path: `/api/orgs/${t.orgId}/invites`,
          params: { id: t.orgId },
          cookie: i === 1 ? t.admin.cookie : t.owner.cookie,
          body: { email: invitee.user.email, role },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    const waiting = await (
      await db()
    ).organisationInvite.count({
      where: { organisationId: t.orgId, email: invitee.user.email!, acceptedAt: null, revokedAt: null },
    });
    expect(waiting).toBe(1);
  });

  it("12 concurrent key creations by a member at 8 keys leave exactly 10 (a member's limit), and the owner still makes keys", async () => {
    const t = await team();
    const asOrg = { cookie: t.member.cookie, headers: actingAs(t.orgId) };
    for (let i = 0; i < 8; i++) expect((await call(keys.POST, { path: "/api/keys", ...asOrg, body: { name: `m${i}` } })).status).toBe(200);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => call(keys.POST, { path: "/api/keys", ...asOrg, body: { name: `race${i}` } })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(2);
    expect(results.filter((r) => r.status === 403).every((r) => /most a member may hold/.test(r.body.error))).toBe(true);
    expect(await (await db()).apiKey.count({ where: { userId: t.orgId, createdBy: t.member.user.id, revokedAt: null } })).toBe(10);
    const owners = await call(keys.POST, { path: "/api/keys", cookie: t.owner.cookie, headers: actingAs(t.orgId), body: { name: "ops" } });
    expect(owners.status).toBe(200);
  });
});
