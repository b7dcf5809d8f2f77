import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as orgs from "@/app/api/orgs/route";
import * as org from "@/app/api/orgs/[id]/route";
import * as members from "@/app/api/orgs/[id]/members/route";
import * as member from "@/app/api/orgs/[id]/members/[userId]/route";
import * as transfer from "@/app/api/orgs/[id]/transfer/route";
import * as invites from "@/app/api/orgs/[id]/invites/route";
import * as invite from "@/app/api/orgs/[id]/invites/[inviteId]/route";
import * as usage from "@/app/api/orgs/[id]/usage/route";
import * as accept from "@/app/api/invites/accept/route";
import * as active from "@/app/api/account/active/route";
import * as chat from "@/app/api/ai/chat/route";
import * as keys from "@/app/api/keys/route";
import * as keyRoute from "@/app/api/keys/[id]/route";
import * as history from "@/app/api/credits/history/route";
import * as checkout from "@/app/api/payments/create-checkout/route";
import * as completions from "@/app/v1/chat/completions/route";
import * as modelsRoute from "@/app/v1/models/route";
import * as adminOrgs from "@/app/api/admin/organisations/route";
import * as adminUser from "@/app/api/admin/users/[id]/route";
import * as adminUsers from "@/app/api/admin/users/route";
import * as audit from "@/app/api/admin/audit/route";
import { db } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, sessionCookie } from "@/tests/helpers/http";
import { balanceOf, stubProviderForFile } from "../ai/ai-test-kit";
import { v1 } from "../api-keys/key-test-kit";
import { actingAs, grant, join, mailedInviteToken, operatorCookie, person, team, type Person } from "./org-test-kit";

const stub = await stubProviderForFile();

let restore: () => void;
let operator: string;
beforeAll(async () => {
  restore = setEnv({ ADMIN_EMAILS: "org-operator@example.com" });
  operator = await operatorCookie("org-operator@example.com");
});
afterAll(() => restore());

const hello = { messages: [{ role: "user", content: "Hello there" }] };
const chatAs = (p: Person, accountId: string | null, body: unknown = hello) =>
  call(chat.POST, { path: "/api/ai/chat", cookie: p.cookie, headers: accountId ? actingAs(accountId) : {}, body });

async function ledgerSum(accountId: string) {
  const prisma = await db();
  const rows = await prisma.creditTransaction.findMany({ where: { userId: accountId } });
  return rows.reduce((s, r) => s + r.amount, 0);
}

describe("organisations: create, invite, accept", () => {
  it("an organisation's name is one line of printable text: line breaks (which would reach invitation mail) answer 400", async () => {
    const owner = await person("newline");
    for (const name of ["Acme\r\n\r\nACTION REQUIRED: verify at https://evil.example/v", "Acme\u2028Inc", "A\u0007"]) {
      const res = await call(orgs.POST, { path: "/api/orgs", cookie: owner.cookie, body: { name } });
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(res.body.error).toMatch(/name: must be one line of printable text/);
    }
    expect(await (await db()).organisation.count({ where: { name: { startsWith: "Acme" } } })).toBe(0);
  });

  it("creates an organisation with an empty wallet and no free allocation; the creator is its owner", async () => {
    const owner = await person("creator");
    const res = await call(orgs.POST, {
      path: "/api/orgs",
      cookie: owner.cookie,
      body: { name: "Zeta Labs", slug: "zeta-labs-" + Date.now().toString(36) },
    });
    expect(res.status).toBe(200);
    expect(res.body.organisation).toMatchObject({ name: "Zeta Labs", role: "owner" });
    const id = res.body.organisation.id;
    const detail = await call(org.GET, { path: `/api/orgs/${id}`, params: { id }, cookie: owner.cookie });
    expect(detail.status).toBe(200);
    expect(detail.body.wallet).toMatchObject({ tier: "free", subscriptionCredits: 0, totalUsable: 0 });
    expect(detail.body.you).toEqual({
      userId: owner.user.id,
      role: "owner",
      dailyCap: null,
      monthlyCap: null,
      spentToday: 0,
      spentThisMonth: 0,
      allowedModels: [],
    });
    // Acting as it, a call is refused for want of credits: nothing from the person's own 200.
    const refused = await chatAs(owner, id);
    expect(refused.status).toBe(402);
    expect(stub.count()).toBe(0);
    expect(await balanceOf(owner.user.id)).toBe(200);
    const list = await call(orgs.GET, { path: "/api/orgs", cookie: owner.cookie });
    expect(list.body.organisations.map((o: { id: string }) => o.id)).toContain(id);
    // A taken slug, a bad slug, no name.
    const taken = await call(orgs.POST, {
      path: "/api/orgs",
      cookie: owner.cookie,
      body: { name: "Again", slug: res.body.organisation.slug },
    });
    expect(taken.status).toBe(409);
    const bad = await call(orgs.POST, { path: "/api/orgs", cookie: owner.cookie, body: { name: "Bad", slug: "-x" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/slug/);
    expect((await call(orgs.POST, { path: "/api/orgs", cookie: owner.cookie, body: {} })).status).toBe(400);
    expect((await call(orgs.POST, { path: "/api/orgs", body: { name: "x" } })).status).toBe(401);
  });

  it("an invitation works once, for the invited address only, by its emailed link", async () => {
    const owner = await person("inviter");
    const invited = await person("invited");
    const stranger = await person("stranger");
    const id = (await call(orgs.POST, { path: "/api/orgs", cookie: owner.cookie, body: { name: "Invite Co" } })).body.organisation.id;
    const sent = await call(invites.POST, {
      path: `/api/orgs/${id}/invites`,
      params: { id },
      cookie: owner.cookie,
      body: { email: invited.user.email },
    });
    expect(sent.status).toBe(200);
    expect(sent.body.invite).toMatchObject({ email: invited.user.email, role: "member", status: "pending" });
    expect(new Date(sent.body.invite.expiresAt).getTime() - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    const token = await mailedInviteToken(invited.user.email as string);
    // The token is never stored: only its hash.
    const prisma = await db();
    const row = await prisma.organisationInvite.findUniqueOrThrow({ where: { id: sent.body.invite.id } });
    expect(row.tokenHash).not.toContain(token);

    const wrong = await call(accept.POST, { path: "/api/invites/accept", cookie: stranger.cookie, body: { token } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error).toContain(invited.user.email);
    // An unverified session with the right address (a provider that does not vouch for it) is refused in production.
    const undo = setEnv({ APP_ENV: "production", CRON_SECRET: "c".repeat(32) });
    try {
      const unverified = await call(accept.POST, { path: "/api/invites/accept", cookie: invited.cookie, body: { token } });
      expect(unverified.status).toBe(403);
    } finally {
      undo();
    }
    const verified = await sessionCookie(invited.user, { authMethod: "email", emailVerified: true });
    const ok = await call(accept.POST, { path: "/api/invites/accept", cookie: verified, body: { token } });
    expect(ok.status).toBe(200);
    expect(ok.body.organisation).toMatchObject({ id, role: "member" });
    const again = await call(accept.POST, { path: "/api/invites/accept", cookie: verified, body: { token } });
    expect(again.status).toBe(404);
    const bad = await call(accept.POST, { path: "/api/invites/accept", cookie: verified, body: { token: "x".repeat(43) } });
    expect(bad.status).toBe(404);
    const already = await call(invites.POST, {
      path: `/api/orgs/${id}/invites`,
      params: { id },
      cookie: owner.cookie,
      body: { email: invited.user.email },
    });
    expect(already.status).toBe(409);

    // A withdrawn invitation's link stops working; an expired one too.
    const later = await person("later");
    const second = await call(invites.POST, {
      path: `/api/orgs/${id}/invites`,
      params: { id },
      cookie: owner.cookie,
      body: { email: later.user.email, role: "admin" },
    });
    const laterToken = await mailedInviteToken(later.user.email as string);
    const withdrawn = await call(invite.DELETE, {
      path: `/api/orgs/${id}/invites/${second.body.invite.id}`,
      params: { id, inviteId: second.body.invite.id },
      cookie: owner.cookie,
    });
    expect(withdrawn.body.invite.status).toBe("revoked");
    expect((await call(accept.POST, { path: "/api/invites/accept", cookie: later.cookie, body: { token: laterToken } })).status).toBe(404);
    const third = await call(invites.POST, {
      path: `/api/orgs/${id}/invites`,
      params: { id },
      cookie: owner.cookie,
      body: { email: later.user.email },
    });
    await prisma.organisationInvite.update({ where: { id: third.body.invite.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(
      (
        await call(accept.POST, {
          path: "/api/invites/accept",
          cookie: later.cookie,
          body: { token: await mailedInviteToken(later.user.email as string) },
        })
      ).status,
    ).toBe(404);
    const listed = await call(invites.GET, { path: `/api/orgs/${id}/invites`, params: { id }, cookie: owner.cookie });
    expect(listed.body.invites.map((i: { status: string }) => i.status).sort()).toEqual(["accepted", "expired", "revoked"]);
    // One address gets at most 3 invitations an hour (our mailer is no way to mail a stranger again and again).
    const stranger2 = `flooded-${Date.now().toString(36)}@example.com`;
    for (let i = 0; i < 3; i++)
      expect(
        (await call(invites.POST, { path: `/api/orgs/${id}/invites`, params: { id }, cookie: owner.cookie, body: { email: stranger2 } }))
          .status,
      ).toBe(200);
    const flooded = await call(invites.POST, {
      path: `/api/orgs/${id}/invites`,
      params: { id },
      cookie: owner.cookie,
      body: { email: stranger2 },
    });
    expect(flooded.status).toBe(429);
    expect(flooded.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});

describe("organisations: who may do what", () => {
  it("answers every organisation route by role: owner, admin, member, outsider (404), nobody (401)", async () => {
    const t = await team();
    const id = t.orgId;
    const target = await person("target");
    await join(id, t.owner, target);
    type Who = "owner" | "admin" | "member" | "outsider";
    const people: Record<Who, Person> = { owner: t.owner, admin: t.admin, member: t.member, outsider: t.outsider };
    const cases: Array<{
      name: string;
      run: (p: Person) => Promise<{ status: number; body: { error?: unknown }; text: string }>;
      expect: Record<Who, number>;
    }> = [
      {
        name: "GET org",
        run: (p) => call(org.GET, { path: `/api/orgs/${id}`, params: { id }, cookie: p.cookie }),
        expect: { owner: 200, admin: 200, member: 200, outsider: 404 },
      },
      {
        name: "PATCH org",
        run: (p) =>
          call(org.PATCH, { method: "PATCH", path: `/api/orgs/${id}`, params: { id }, cookie: p.cookie, body: { name: "Acme Research" } }),
        expect: { owner: 200, admin: 200, member: 403, outsider: 404 },
      },
      {
        name: "GET members",
        run: (p) => call(members.GET, { path: `/api/orgs/${id}/members`, params: { id }, cookie: p.cookie }),
        expect: { owner: 200, admin: 200, member: 200, outsider: 404 },
      },
      {
        name: "PATCH member caps",
        run: (p) =>
          call(member.PATCH, {
            method: "PATCH",
            path: `/api/orgs/${id}/members/${target.user.id}`,
            params: { id, userId: target.user.id },
            cookie: p.cookie,
            body: { dailyCap: 100 },
          }),
        expect: { owner: 200, admin: 200, member: 403, outsider: 404 },
      },
      {
        name: "PATCH the owner's role",
        run: (p) =>
          call(member.PATCH, {
            method: "PATCH",
            path: `/api/orgs/${id}/members/${t.owner.user.id}`,
            params: { id, userId: t.owner.user.id },
            cookie: p.cookie,
            body: { role: "member" },
          }),
        expect: { owner: 409, admin: 409, member: 403, outsider: 404 },
      },
      {
        name: "DELETE the owner",
        run: (p) =>
          call(member.DELETE, {
            method: "DELETE",
            path: `/api/orgs/${id}/members/${t.owner.user.id}`,
            params: { id, userId: t.owner.user.id },
            cookie: p.cookie,
          }),
        expect: { owner: 409, admin: 403, member: 403, outsider: 404 },
      },
      {
        name: "GET invites",
        run: (p) => call(invites.GET, { path: `/api/orgs/${id}/invites`, params: { id }, cookie: p.cookie }),
        expect: { owner: 200, admin: 200, member: 403, outsider: 404 },
      },
      {
        name: "POST invite",
        run: (p) =>
          call(invites.POST, {
            path: `/api/orgs/${id}/invites`,
            params: { id },
            cookie: p.cookie,
            body: { email: `matrix-${Math.random().toString(36).slice(2)}@example.com` },
          }),
        expect: { owner: 200, admin: 200, member: 403, outsider: 404 },
      },
      {
        name: "POST transfer",
        run: (p) =>
          call(transfer.POST, {
            path: `/api/orgs/${id}/transfer`,
            params: { id },
            cookie: p.cookie,
            body: { userId: p.user.id === t.owner.user.id ? t.owner.user.id : t.admin.user.id },
          }),
        expect: { owner: 400, admin: 403, member: 403, outsider: 404 },
      },
      {
        name: "GET usage",
        run: (p) => call(usage.GET, { path: `/api/orgs/${id}/usage`, params: { id }, cookie: p.cookie }),
        expect: { owner: 200, admin: 200, member: 200, outsider: 404 },
      },
      {
        name: "POST checkout acting as it",
        run: (p) =>
          call(checkout.POST, {
            path: "/api/payments/create-checkout",
            cookie: p.cookie,
            headers: actingAs(id),
            body: { variantId: "local-basic-monthly" },
          }),
        expect: { owner: 200, admin: 200, member: 403, outsider: 403 },
      },
      {
        name: "GET credit history acting as it",
        run: (p) => call(history.GET, { path: "/api/credits/history", cookie: p.cookie, headers: actingAs(id) }),
        expect: { owner: 200, admin: 200, member: 403, outsider: 403 },
      },
    ];
    const seen: string[] = [];
    for (const c of cases) {
      for (const who of ["owner", "admin", "member", "outsider"] as Who[]) {
        const res = await c.run(people[who]);
        seen.push(
          `${c.name} as ${who}: ${res.status}${res.status !== c.expect[who] ? ` (expected ${c.expect[who]}: ${res.text.slice(0, 120)})` : ""}`,
        );
        if (res.status >= 400) expect(res.body.error).toEqual(expect.any(String));
      }
    }
    expect(seen.filter((line) => line.includes("expected"))).toEqual([]);
    // Nobody signed in.
    expect((await call(org.GET, { path: `/api/orgs/${id}`, params: { id } })).status).toBe(401);
    // A member sees their own caps, not others'; admins see all.
    const asMember = await call(members.GET, { path: `/api/orgs/${id}/members`, params: { id }, cookie: t.member.cookie });
    const rows = asMember.body.members as Array<{ userId: string; caps: unknown }>;
    expect(rows.find((m) => m.userId === t.member.user.id)?.caps).not.toBeNull();
    expect(rows.find((m) => m.userId === target.user.id)?.caps).toBeNull();
    const asAdmin = await call(members.GET, { path: `/api/orgs/${id}/members`, params: { id }, cookie: t.admin.cookie });
    expect(asAdmin.body.members.find((m: { userId: string }) => m.userId === target.user.id).caps).toMatchObject({ dailyCap: 100 });
  });

  it("ownership moves only by transfer; the owner leaves after it; an admin removes members, not the owner", async () => {
    const t = await team();
    const id = t.orgId;
    const p = (userId: string) => ({ path: `/api/orgs/${id}/members/${userId}`, params: { id, userId } });
    expect((await call(member.DELETE, { method: "DELETE", ...p(t.owner.user.id), cookie: t.owner.cookie })).status).toBe(409);
    const moved = await call(transfer.POST, {
      path: `/api/orgs/${id}/transfer`,
      params: { id },
      cookie: t.owner.cookie,
      body: { userId: t.admin.user.id },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.member).toMatchObject({ userId: t.admin.user.id, role: "owner" });
    const list = await call(members.GET, { path: `/api/orgs/${id}/members`, params: { id }, cookie: t.member.cookie });
    expect(list.body.members.filter((m: { role: string }) => m.role === "owner")).toHaveLength(1);
    // The former owner is an admin now, and may leave.
    expect(
      (
        await call(transfer.POST, {
          path: `/api/orgs/${id}/transfer`,
          params: { id },
          cookie: t.owner.cookie,
          body: { userId: t.member.user.id },
        })
      ).status,
    ).toBe(403);
    expect((await call(member.DELETE, { method: "DELETE", ...p(t.owner.user.id), cookie: t.owner.cookie })).status).toBe(200);
    expect((await call(org.GET, { path: `/api/orgs/${id}`, params: { id }, cookie: t.owner.cookie })).status).toBe(404);
    // A transfer to someone outside: 404.
    expect(
      (
        await call(transfer.POST, {
          path: `/api/orgs/${id}/transfer`,
          params: { id },
          cookie: t.admin.cookie,
          body: { userId: t.outsider.user.id },
        })
      ).status,
    ).toBe(404);
    expect(
      (await call(transfer.POST, { path: `/api/orgs/${id}/transfer`, params: { id }, cookie: t.admin.cookie, body: { userId: "nope" } }))
        .status,
    ).toBe(400);
  });
});

describe("organisations: one wallet, caps per member and per key", () => {
  it("charges the organisation's wallet for a member acting as it, within their caps, and reports spend by member, key and model", async () => {
    const t = await team();
    const id = t.orgId;
    await grant(operator, id, 100);
    const before = await balanceOf(t.member.user.id);
    const capped = await call(member.PATCH, {
      method: "PATCH",
      path: `/api/orgs/${id}/members/${t.member.user.id}`,
      params: { id, userId: t.member.user.id },
      cookie: t.admin.cookie,
      body: { dailyCap: 30 },
    });
    expect(capped.status).toBe(200);
    expect((await chatAs(t.member, id)).status).toBe(200);
    expect((await chatAs(t.member, id)).status).toBe(200);
    const third = await chatAs(t.member, id);
    expect(third.status).toBe(429);
    expect(third.body.error).toMatch(/cap in this organisation is used up: 30 of 30 credits spent today/);
    expect(await balanceOf(id)).toBe(70);
    expect(await balanceOf(t.member.user.id)).toBe(before);
    // The admin has no cap; the org pays.
    expect((await chatAs(t.admin, id)).status).toBe(200);
    expect(await balanceOf(id)).toBe(55);
    // Acting as themself, the member pays from their own wallet.
    expect((await chatAs(t.member, null)).status).toBe(200);
    expect(await balanceOf(t.member.user.id)).toBe(before - 15);

    // Their own key made while acting as the organisation charges it and counts against the same cap.
    const made = await call(keys.POST, {
      path: "/api/keys",
      cookie: t.admin.cookie,
      headers: actingAs(id),
      body: { name: "ci", budget: { credits: 15, period: "total" } },
    });
    expect(made.status).toBe(200);
    const secret = made.body.secret as string;
    const completion = { model: "gpt-4o", messages: [{ role: "user", content: "hi" }], max_tokens: 10 };
    const viaKey = await v1(completions.POST, "/v1/chat/completions", secret, { body: completion });
    expect(viaKey.status).toBe(200);
    const overBudget = await v1(completions.POST, "/v1/chat/completions", secret, { body: completion });
    expect(overBudget.status).toBe(429);
    expect(overBudget.body.error.message).toMatch(/API key's budget/);
    const orgLeft = await balanceOf(id);
    expect(orgLeft).toBeLessThan(55);

    // Keys: the admin sees the organisation's keys; the member sees only theirs.
    const memberKeys = await call(keys.GET, { path: "/api/keys", cookie: t.member.cookie, headers: actingAs(id) });
    expect(memberKeys.body.keys).toEqual([]);
    const adminKeys = await call(keys.GET, { path: "/api/keys", cookie: t.admin.cookie, headers: actingAs(id) });
    expect(adminKeys.body.keys.map((k: { name: string }) => k.name)).toEqual(["ci"]);
    // The organisation's keys are not the person's.
    expect((await call(keys.GET, { path: "/api/keys", cookie: t.admin.cookie })).body.keys).toEqual([]);

    const report = await call(usage.GET, { path: `/api/orgs/${id}/usage`, params: { id }, cookie: t.owner.cookie });
    expect(report.status).toBe(200);
    expect(report.body.scope).toBe("organisation");
    const byMember = Object.fromEntries(report.body.byMember.map((m: { userId: string; credits: number }) => [m.userId, m.credits]));
    expect(byMember[t.member.user.id]).toBe(30);
    expect(byMember[t.admin.user.id]).toBe(15 + (55 - orgLeft));
    expect(report.body.total.credits).toBe(100 - orgLeft);
    expect(report.body.byKey.find((k: { name: string | null }) => k.name === "ci")?.credits).toBe(55 - orgLeft);
    expect(report.body.byModel.length).toBeGreaterThan(0);
    const mine = await call(usage.GET, { path: `/api/orgs/${id}/usage`, params: { id }, cookie: t.member.cookie });
    expect(mine.body.scope).toBe("member");
    expect(mine.body.byMember).toEqual([expect.objectContaining({ userId: t.member.user.id, credits: 30 })]);
    const csv = await call(usage.GET, { path: `/api/orgs/${id}/usage?format=csv`, params: { id }, cookie: t.owner.cookie });
    expect(csv.headers.get("content-type")).toContain("text/csv");
    expect(csv.text).toContain(`member,${t.member.user.id},${t.member.user.email},2,30,`);
    const badPeriod = await call(usage.GET, {
      path: `/api/orgs/${id}/usage?from=2026-02-01&to=2026-01-01`,
      params: { id },
      cookie: t.owner.cookie,
    });
    expect(badPeriod.status).toBe(400);

    // The wallet's ledger is the sum of its rows, and its history (CSV too) is the organisation's.
    expect(await ledgerSum(id)).toBe(orgLeft);
    const hist = await call(history.GET, { path: "/api/credits/history", cookie: t.owner.cookie, headers: actingAs(id) });
    expect(hist.body.transactions.filter((r: { type: string }) => r.type === "usage")).toHaveLength(4);
  });

  it("a removed member loses the organisation at once: their session and the keys they made", async () => {
    const t = await team();
    const id = t.orgId;
    await grant(operator, id, 100);
    const made = await call(keys.POST, { path: "/api/keys", cookie: t.member.cookie, headers: actingAs(id), body: { name: "mine" } });
    const secret = made.body.secret as string;
    const completion = { model: "gpt-4o", messages: [{ role: "user", content: "hi" }], max_tokens: 10 };
    expect((await v1(completions.POST, "/v1/chat/completions", secret, { body: completion })).status).toBe(200);
    const switched = await call(active.PUT, {
      method: "PUT",
      path: "/api/account/active",
      cookie: t.member.cookie,
      body: { accountId: id },
    });
    expect(switched.status).toBe(200);
    expect(switched.body.account).toMatchObject({ id, kind: "organisation", name: "Acme Research", role: "member" });
    const cookie = `${t.member.cookie}; ${switched.headers.get("set-cookie")?.split(";")[0]}`;
    expect((await call(chat.POST, { path: "/api/ai/chat", cookie, body: hello })).status).toBe(200);

    const removed = await call(member.DELETE, {
      method: "DELETE",
      path: `/api/orgs/${id}/members/${t.member.user.id}`,
      params: { id, userId: t.member.user.id },
      cookie: t.admin.cookie,
    });
    expect(removed.status).toBe(200);
    const left = await balanceOf(id);
    const refused = await call(chat.POST, { path: "/api/ai/chat", cookie, body: hello });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/not a member/);
    expect((await v1(completions.POST, "/v1/chat/completions", secret, { body: completion })).status).toBe(401);
    expect(await balanceOf(id)).toBe(left);
    expect((await call(active.GET, { path: "/api/account/active", cookie })).status).toBe(403);
    // Switching to an organisation one does not belong to: 404; back to personal: works.
    expect((await call(active.PUT, { method: "PUT", path: "/api/account/active", cookie, body: { accountId: id } })).status).toBe(404);
    const back = await call(active.PUT, { method: "PUT", path: "/api/account/active", cookie, body: { accountId: null } });
    expect(back.body.account).toMatchObject({ kind: "person", id: t.member.user.id });
    expect(back.headers.get("set-cookie")).toMatch(/active-account=;.*Max-Age=0/);
    // The cookie is the person's: someone else signing in on the same browser starts on their own account.
    const setCookie = switched.headers.get("set-cookie")!.split(";")[0];
    const other = await person("same-browser");
    const theirs = await call(active.GET, { path: "/api/account/active", cookie: `${other.cookie}; ${setCookie}` });
    expect(theirs.status).toBe(200);
    expect(theirs.body.account).toMatchObject({ kind: "person", id: other.user.id });
  });

  it("a revoked key never works again: its maker removed and re-admitted within the key cache's 3 s, the key answers 401 and charges nothing", async () => {
    const t = await team();
    const id = t.orgId;
    await grant(operator, id, 100);
    const made = await call(keys.POST, { path: "/api/keys", cookie: t.member.cookie, headers: actingAs(id), body: { name: "cached" } });
    const secret = made.body.secret as string;
    const completion = { model: "gpt-4o", messages: [{ role: "user", content: "hi" }], max_tokens: 10 };
    // This call leaves the key cached as active in this process.
    expect((await v1(completions.POST, "/v1/chat/completions", secret, { body: completion })).status).toBe(200);
    const removed = await call(member.DELETE, {
      method: "DELETE",
      path: `/api/orgs/${id}/members/${t.member.user.id}`,
      params: { id, userId: t.member.user.id },
      cookie: t.admin.cookie,
    });
    expect(removed.status).toBe(200);
    await join(id, t.owner, t.member, "member");
    const left = await balanceOf(id);
    const again = await v1(completions.POST, "/v1/chat/completions", secret, { body: completion });
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe("invalid_api_key");
    expect(await balanceOf(id)).toBe(left);
    const listed = await call(keys.GET, { path: "/api/keys", cookie: t.owner.cookie, headers: actingAs(id) });
    expect(listed.body.keys.find((k: { id: string }) => k.id === made.body.key.id)).toMatchObject({ status: "revoked" });
  });

  it("a re-admitted member comes back with the caps, model rule and this period's spend they left with", async () => {
    const t = await team();
    const id = t.orgId;
    await grant(operator, id, 200);
    const memberPath = { path: `/api/orgs/${id}/members/${t.member.user.id}`, params: { id, userId: t.member.user.id } };
    expect(
      (
        await call(member.PATCH, {
          method: "PATCH",
          ...memberPath,
          cookie: t.admin.cookie,
          body: { dailyCap: 30, allowedModels: ["gpt-4o-mini"] },
        })
      ).status,
    ).toBe(200);
    expect((await chatAs(t.member, id)).status).toBe(200);
    expect((await call(member.DELETE, { method: "DELETE", ...memberPath, cookie: t.admin.cookie })).status).toBe(200);
    await join(id, t.owner, t.member, "member");
    const listed = await call(members.GET, { path: `/api/orgs/${id}/members`, params: { id }, cookie: t.admin.cookie });
    const back = listed.body.members.find((m: { userId: string }) => m.userId === t.member.user.id);
    expect(back.caps).toMatchObject({ dailyCap: 30, spentToday: 15, allowedModels: ["gpt-4o-mini"] });
    expect((await chatAs(t.member, id)).status).toBe(200);
    const over = await chatAs(t.member, id);
    expect(over.status).toBe(429);
    expect(over.body.error).toMatch(/30 of 30 credits spent today/);
  });

  it("model rules: the organisation's list and a member's narrower one hold at every charge and in /v1/models, with a 403 naming the rule", async () => {
    const t = await team();
    const id = t.orgId;
    await grant(operator, id, 300);
    const made = await call(keys.POST, { path: "/api/keys", cookie: t.member.cookie, headers: actingAs(id), body: { name: "rules" } });
    const secret = made.body.secret as string;
    const offered = (await v1(modelsRoute.GET, "/v1/models", secret)).body.data.map((m: { id: string }) => m.id) as string[];
    expect(offered).toContain("gpt-4o");
    expect(offered).toContain("gpt-4o-mini");
    const completion = (model: string) =>
      v1(completions.POST, "/v1/chat/completions", secret, {
        body: { model, messages: [{ role: "user", content: "hi" }], max_tokens: 10 },
      });
    const patchOrg = (cookie: string, allowedModels: string[]) =>
      call(org.PATCH, { method: "PATCH", path: `/api/orgs/${id}`, params: { id }, cookie, body: { allowedModels } });

    // The organisation allows gpt-4o only: the session's default chat model (gpt-4o-mini) and the key's gpt-4o-mini are refused.
    const set = await patchOrg(t.admin.cookie, ["gpt-4o"]);
    expect(set.status).toBe(200);
    expect(set.body.organisation.allowedModels).toEqual(["gpt-4o"]);
    const before = await balanceOf(id);
    const refused = await chatAs(t.member, id);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/This organisation allows its members the models gpt-4o; `gpt-4o-mini` is not one of them/);
    const refusedV1 = await completion("gpt-4o-mini");
    expect(refusedV1.status).toBe(403);
    expect(refusedV1.body.error.code).toBe("model_not_allowed");
    expect(await balanceOf(id)).toBe(before);
    expect((await completion("gpt-4o")).status).toBe(200);
    expect((await v1(modelsRoute.GET, "/v1/models", secret)).body.data.map((m: { id: string }) => m.id)).toEqual(["gpt-4o"]);
    // The member's own wallet has no rule.
    expect((await chatAs(t.member, null)).status).toBe(200);

    // A member's narrower rule: within the organisation's.
    expect((await patchOrg(t.owner.cookie, [])).status).toBe(200);
    const memberPath = { path: `/api/orgs/${id}/members/${t.member.user.id}`, params: { id, userId: t.member.user.id } };
    const narrowed = await call(member.PATCH, {
      method: "PATCH",
      ...memberPath,
      cookie: t.admin.cookie,
      body: { allowedModels: ["gpt-4o-mini"] },
    });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.member.caps.allowedModels).toEqual(["gpt-4o-mini"]);
    expect((await chatAs(t.member, id)).status).toBe(200);
    const mine = await completion("gpt-4o");
    expect(mine.status).toBe(403);
    expect(mine.body.error.message).toMatch(/In this organisation you may use the models gpt-4o-mini; `gpt-4o` is not one of them/);
    // Others are not narrowed.
    expect((await chatAs(t.admin, id)).status).toBe(200);

    // Bad lists: 400 naming the field; a plain member may not set rules.
    const bad = await patchOrg(t.owner.cookie, ["no-such-model"]);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/allowedModels: "no-such-model" is not offered/);
    expect((await patchOrg(t.member.cookie, ["gpt-4o"])).status).toBe(403);
  });

  it("a member holds at most 10 of the organisation's keys and members together 40: the last 10 stay for the owner and admins", async () => {
    const t = await team();
    const id = t.orgId;
    const create = (p: Person, name: string) =>
      call(keys.POST, { path: "/api/keys", cookie: p.cookie, headers: actingAs(id), body: { name } });
    for (let i = 0; i < 10; i++) expect((await create(t.member, `m${i}`)).status).toBe(200);
    const eleventh = await create(t.member, "one too many");
    expect(eleventh.status).toBe(403);
    expect(eleventh.body.error).toMatch(/10 active keys in this organisation, the most a member may hold/);
    const others: Person[] = [];
    for (let n = 0; n < 4; n++) {
      const p = await person("key-member");
      await join(id, t.owner, p, "member");
      others.push(p);
    }
    for (const p of others.slice(0, 3)) for (let i = 0; i < 10; i++) expect((await create(p, `k${i}`)).status).toBe(200);
    // 40 keys by plain members: the fifth member is refused though they hold none.
    const full = await create(others[3], "first");
    expect(full.status).toBe(403);
    expect(full.body.error).toMatch(/members hold 40 active keys.*kept for its owner and admins/);
    for (let i = 0; i < 5; i++) expect((await create(t.owner, `o${i}`)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await create(t.admin, `a${i}`)).status).toBe(200);
    const fiftyFirst = await create(t.owner, "over");
    expect(fiftyFirst.status).toBe(403);
    expect(fiftyFirst.body.error).toMatch(/50 active keys/);
    // A revoked key frees its place.
    const mine = await call(keys.GET, { path: "/api/keys", cookie: t.member.cookie, headers: actingAs(id) });
    const first = mine.body.keys[0].id as string;
    expect(
      (
        await call(keyRoute.DELETE, {
          method: "DELETE",
          path: `/api/keys/${first}`,
          params: { id: first },
          cookie: t.member.cookie,
          headers: actingAs(id),
        })
      ).status,
    ).toBe(200);
    expect((await create(t.owner, "after a revocation")).status).toBe(200);
  });

  it("an admin's waiting invitations are withdrawn when the admin is removed", async () => {
    const t = await team();
    const invitee = await person("invited-by-admin");
    const sent = await call(invites.POST, {
      path: `/api/orgs/${t.orgId}/invites`,
      params: { id: t.orgId },
      cookie: t.admin.cookie,
      body: { email: invitee.user.email, role: "member" },
    });
    expect(sent.status).toBe(200);
    const token = await mailedInviteToken(invitee.user.email as string);
    const removed = await call(member.DELETE, {
      method: "DELETE",
      path: `/api/orgs/${t.orgId}/members/${t.admin.user.id}`,
      params: { id: t.orgId, userId: t.admin.user.id },
      cookie: t.owner.cookie,
    });
    expect(removed.status).toBe(200);
    const listed = await call(invites.GET, { path: `/api/orgs/${t.orgId}/invites`, params: { id: t.orgId }, cookie: t.owner.cookie });
    expect(listed.body.invites.find((i: { id: string }) => i.id === sent.body.invite.id)).toMatchObject({ status: "revoked" });
    expect((await call(accept.POST, { path: "/api/invites/accept", cookie: invitee.cookie, body: { token } })).status).toBe(404);
  });

  it("the console finds an organisation, shows its members and wallet, and adjusts its credits with an audit row", async () => {
    const t = await team();
    const found = await call(adminOrgs.GET, { path: "/api/admin/organisations?q=Acme", cookie: operator });
    expect(found.status).toBe(200);
    expect(found.body.organisations.map((o: { id: string }) => o.id)).toContain(t.orgId);
    const byMember = await call(adminOrgs.GET, {
      path: `/api/admin/organisations?q=${encodeURIComponent(t.member.user.email as string)}`,
      cookie: operator,
    });
    expect(byMember.body.organisations.map((o: { id: string }) => o.id)).toEqual([t.orgId]);
    await grant(operator, t.orgId, 40);
    const overview = await call(adminUser.GET, { path: `/api/admin/users/${t.orgId}`, params: { id: t.orgId }, cookie: operator });
    expect(overview.body.user.kind).toBe("organisation");
    expect(overview.body.organisation.members.map((m: { role: string }) => m.role).sort()).toEqual(["admin", "member", "owner"]);
    expect(overview.body.credits.balances.subscription).toBe(40);
    const trail = await call(audit.GET, { path: `/api/admin/audit?targetId=${t.orgId}`, cookie: operator });
    const entries = trail.body.entries ?? trail.body.items ?? trail.body.actions;
    expect(entries[0]).toMatchObject({ action: "credits.adjust", targetType: "organisation" });
    // Organisations are not people: the user search does not list them.
    const users = await call(adminUsers.GET, { path: `/api/admin/users?q=${t.orgId}`, cookie: operator });
    expect(users.body.users).toEqual([]);
    // And nobody else may see the console's organisations.
    expect((await call(adminOrgs.GET, { path: "/api/admin/organisations", cookie: t.owner.cookie })).status).toBe(404);
  });
});

describe("organisations: when an owner's account is deleted", () => {
  it("ownership passes to the longest-standing admin; an organisation with no other member goes with its wallet", async () => {
    const { deleteUser } = await import("@/lib/account/delete-user");
    const t = await team();
    const alone = await person("alone");
    const soloId = (await call(orgs.POST, { path: "/api/orgs", cookie: alone.cookie, body: { name: "Solo" } })).body.organisation
      .id as string;
    await deleteUser(t.owner.user.id);
    await deleteUser(alone.user.id);
    const list = await call(members.GET, { path: `/api/orgs/${t.orgId}/members`, params: { id: t.orgId }, cookie: t.member.cookie });
    expect(list.body.members.map((m: { userId: string; role: string }) => [m.userId, m.role])).toEqual([
      [t.admin.user.id, "owner"],
      [t.member.user.id, "member"],
    ]);
    const prisma = await db();
    expect(await prisma.user.count({ where: { id: soloId } })).toBe(0);
    expect(await prisma.creditBalance.count({ where: { userId: soloId } })).toBe(0);
  });
});

describe("organisations: an operator's lock", () => {
  it("a locked organisation's wallet is read-only for every member, its keys suspended; unlocking gives both back", async () => {
    const { POST: lock } = await import("@/app/api/admin/users/[id]/lock/route");
    const { POST: unlock } = await import("@/app/api/admin/users/[id]/unlock/route");
    const t = await team();
    const id = t.orgId;
    await grant(operator, id, 100);
    const made = await call(keys.POST, { path: "/api/keys", cookie: t.admin.cookie, headers: actingAs(id), body: { name: "ci" } });
    const secret = made.body.secret as string;
    const completion = { model: "gpt-4o", messages: [{ role: "user", content: "hi" }], max_tokens: 10 };
    expect(
      (await call(lock, { path: `/api/admin/users/${id}/lock`, params: { id }, cookie: operator, body: { reason: "chargeback review" } }))
        .status,
    ).toBe(200);
    const refused = await chatAs(t.member, id);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/organisation is locked/);
    expect((await v1(completions.POST, "/v1/chat/completions", secret, { body: completion })).status).toBe(403);
    expect((await call(org.GET, { path: `/api/orgs/${id}`, params: { id }, cookie: t.member.cookie })).status).toBe(200);
    expect(await balanceOf(id)).toBe(100);
    // The members' own wallets are not locked.
    expect((await chatAs(t.member, null)).status).toBe(200);
    // Nor can anything about the organisation change: invitations, roles, caps, removals, its name, its owner, joining.
    const joiner = await person("joiner");
    const pending = await call(invites.POST, {
      path: `/api/orgs/${id}/invites`,
      params: { id },
      cookie: t.owner.cookie,
      body: { email: joiner.user.email, role: "member" },
    });
    expect(pending.status).toBe(403);
    expect(pending.body.error).toMatch(/organisation is locked by the site's operator/);
    const memberPath = { path: `/api/orgs/${id}/members/${t.member.user.id}`, params: { id, userId: t.member.user.id } };
    const lockedOut = [
      await call(member.PATCH, { method: "PATCH", ...memberPath, cookie: t.admin.cookie, body: { dailyCap: 10 } }),
      await call(member.PATCH, { method: "PATCH", ...memberPath, cookie: t.owner.cookie, body: { role: "admin" } }),
      await call(member.DELETE, { method: "DELETE", ...memberPath, cookie: t.admin.cookie }),
      await call(org.PATCH, {
        method: "PATCH",
        path: `/api/orgs/${id}`,
        params: { id },
        cookie: t.owner.cookie,
        body: { name: "Renamed" },
      }),
      await call(transfer.POST, {
        path: `/api/orgs/${id}/transfer`,
        params: { id },
        cookie: t.owner.cookie,
        body: { userId: t.admin.user.id },
      }),
    ];
    expect(lockedOut.map((r) => r.status)).toEqual([403, 403, 403, 403, 403]);
    expect((await call(members.GET, { path: `/api/orgs/${id}/members`, params: { id }, cookie: t.admin.cookie })).status).toBe(200);
    expect(
      (await call(unlock, { path: `/api/admin/users/${id}/unlock`, params: { id }, cookie: operator, body: { reason: "cleared" } })).status,
    ).toBe(200);
    // Unlocked: the same changes work again.
    expect((await call(member.PATCH, { method: "PATCH", ...memberPath, cookie: t.admin.cookie, body: { dailyCap: 1000 } })).status).toBe(
      200,
    );
    expect((await chatAs(t.member, id)).status).toBe(200);
    expect((await v1(completions.POST, "/v1/chat/completions", secret, { body: completion })).status).toBe(200);
  });
});
