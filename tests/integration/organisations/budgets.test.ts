import { describe, expect, it } from "vitest";
import * as org from "@/app/api/orgs/[id]/route";
import * as audit from "@/app/api/orgs/[id]/audit/route";
import * as member from "@/app/api/orgs/[id]/members/[userId]/route";
import * as chat from "@/app/api/ai/chat/route";
import * as keys from "@/app/api/keys/route";
import * as completions from "@/app/v1/chat/completions/route";
import { db } from "@/lib/db/client";
import { call } from "@/tests/helpers/http";
import { waitUntil } from "@/tests/helpers/wait-until";
import { balanceOf, stubProviderForFile } from "../ai/ai-test-kit";
import { v1 } from "../api-keys/key-test-kit";
import { actingAs, grant, team, useOperator, type Person } from "./org-test-kit";

const stub = await stubProviderForFile();
const operator = useOperator("budgets-operator@example.com");

const hello = { messages: [{ role: "user", content: "Hello there" }] };
const chatAs = (p: Person, orgId: string) =>
  call(chat.POST, { path: "/api/ai/chat", cookie: p.cookie, headers: actingAs(orgId), body: hello });
const patchOrg = (orgId: string, p: Person, body: unknown) =>
  call(org.PATCH, { method: "PATCH", path: `/api/orgs/${orgId}`, params: { id: orgId }, cookie: p.cookie, body });
const wallet = async (orgId: string, p: Person) =>
  (await call(org.GET, { path: `/api/orgs/${orgId}`, params: { id: orgId }, cookie: p.cookie })).body.wallet;

describe("an organisation's budgets", () => {
  it("a daily budget for the whole organisation, besides its balance: every member's and key's charge counts, the one that would pass it is refused", async () => {
    const t = await team();
    const id = t.orgId;
    await grant(operator.cookie, id, 1_000);

    // Set by the owner and admins only; values are checked.
    expect((await patchOrg(id, t.member, { dailyBudget: 30 })).status).toBe(403);
    const bad = await patchOrg(id, t.owner, { dailyBudget: -5 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/dailyBudget/);
    const set = await patchOrg(id, t.admin, { dailyBudget: 30 });
    expect(set.status).toBe(200);
    expect(set.body.organisation).toMatchObject({ dailyBudget: 30, monthlyBudget: null });

    // Two chats of 15 credits by two members spend it; the third, by anyone, is refused before the provider is asked.
    expect((await chatAs(t.member, id)).status).toBe(200);
    expect((await chatAs(t.admin, id)).status).toBe(200);
    const asked = stub.count("chat");
    const refused = await chatAs(t.owner, id);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatch(/This organisation's daily budget is used up: 30 of 30 credits spent today/);
    expect(stub.count("chat")).toBe(asked);
    expect(await wallet(id, t.member)).toMatchObject({ spentToday: 30, spentThisMonth: 30 });
    // A service key is held to it too.
    const service = await call(keys.POST, {
      path: "/api/keys",
      cookie: t.owner.cookie,
      headers: actingAs(id),
      body: { name: "svc", service: true },
    });
    const byKey = await v1(completions.POST, "/v1/chat/completions", service.body.secret, {
      body: { model: "gpt-4o-mini", messages: hello.messages, max_tokens: 10 },
    });
    expect(byKey.status).toBe(429);
    expect(byKey.body.error.message).toMatch(/organisation's daily budget/);

    // A call the provider fails is refunded, and gives its share of the budget back.
    expect((await patchOrg(id, t.owner, { dailyBudget: 45 })).status).toBe(200);
    stub.next("chat", { kind: "error", status: 500 });
    expect((await chatAs(t.member, id)).status).toBeGreaterThanOrEqual(500);
    expect((await wallet(id, t.owner)).spentToday).toBe(30);
    const before = await balanceOf(id);
    expect((await chatAs(t.member, id)).status).toBe(200);
    expect(await balanceOf(id)).toBe(before - 15);
    expect((await chatAs(t.member, id)).status).toBe(429);

    // A monthly budget holds the same way; null lifts both; the changes are on the audit log.
    expect((await patchOrg(id, t.owner, { dailyBudget: null, monthlyBudget: 50 })).status).toBe(200);
    const monthly = await chatAs(t.member, id);
    expect(monthly.status).toBe(429);
    expect(monthly.body.error).toMatch(/monthly budget is used up: 45 of 50 credits spent this month/);
    expect((await patchOrg(id, t.owner, { monthlyBudget: null })).status).toBe(200);
    expect((await chatAs(t.member, id)).status).toBe(200);
    const log = await call(audit.GET, { path: `/api/orgs/${id}/audit?action=organisation`, params: { id }, cookie: t.owner.cookie });
    expect(log.body.events[0].details).toMatchObject({ monthlyBudget: { from: 50, to: null } });
  });

  it("its budgets fire budget.threshold at the account's percentages, once per window and budget; a changed budget re-arms them", async () => {
    const t = await team();
    const id = t.orgId;
    await grant(operator.cookie, id, 1_000);
    expect((await patchOrg(id, t.owner, { dailyBudget: 30 })).status).toBe(200);
    const alerts = async () =>
      (await (await db()).alertFiring.findMany({ where: { accountId: id }, orderBy: { alert: "asc" } })).map((f) => [f.alert, f.period]);
    expect((await chatAs(t.member, id)).status).toBe(200); // 15 of 30: under 80%
    expect((await chatAs(t.member, id)).status).toBe(200); // 30 of 30: 80% and 100%
    await waitUntil("the team's two alerts", async () => (await alerts()).length >= 2);
    const first = await alerts();
    expect(first.map(([alert]) => alert)).toEqual(["team:day:100", "team:day:80"]);
    expect(first.every(([, period]) => String(period).endsWith("@30"))).toBe(true);
    const event = await (await db()).outboundEvent.findFirstOrThrow({ where: { accountId: id, type: "budget.threshold" } });
    expect(event.payload).toMatchObject({ data: { scope: "organisation", period: "day", budget: 30 } });
    // Raised to 45: the next charge reaches 100% of the new budget, which fires again.
    expect((await patchOrg(id, t.owner, { dailyBudget: 45 })).status).toBe(200);
    expect((await chatAs(t.member, id)).status).toBe(200);
    await waitUntil("the re-armed alerts", async () => (await alerts()).length >= 4);
    expect((await alerts()).filter(([, period]) => String(period).endsWith("@45")).map(([alert]) => alert)).toEqual([
      "team:day:100",
      "team:day:80",
    ]);
    // Raised to 60 by another instance (straight in the database: this process is not told): the next
    // charge compares with 60 at once, not with a budget this process remembered.
    await (await db()).organisation.update({ where: { id }, data: { dailyBudget: 60 } });
    expect((await chatAs(t.member, id)).status).toBe(200);
    await waitUntil("the alerts of the budget raised elsewhere", async () => (await alerts()).length >= 6);
    expect((await alerts()).filter(([, period]) => String(period).endsWith("@60")).map(([alert]) => alert)).toEqual([
      "team:day:100",
      "team:day:80",
    ]);
  });

  it("a member's caps fire budget.threshold with scope member, once per window and cap, mailed to the owner and admins (not the member); a changed cap re-arms them", async () => {
    const t = await team();
    const id = t.orgId;
    await grant(operator.cookie, id, 1_000);
    const capOf = (body: unknown) =>
      call(member.PATCH, {
        method: "PATCH",
        path: `/api/orgs/${id}/members/${t.member.user.id}`,
        params: { id, userId: t.member.user.id },
        cookie: t.admin.cookie,
        body,
      });
    expect((await capOf({ dailyCap: 30 })).status).toBe(200);
    const alerts = async () =>
      (await (await db()).alertFiring.findMany({ where: { accountId: id }, orderBy: { alert: "asc" } })).map((f) => [f.alert, f.period]);
    // The admin's own charges count against no cap of the member's.
    expect((await chatAs(t.admin, id)).status).toBe(200);
    expect((await chatAs(t.member, id)).status).toBe(200); // 15 of 30: under 80%
    await new Promise((r) => setTimeout(r, 50));
    expect(await alerts()).toEqual([]);
    expect((await chatAs(t.member, id)).status).toBe(200); // 30 of 30: 80% and 100%
    await waitUntil("the member's two cap alerts", async () => (await alerts()).length >= 2);
    expect((await alerts()).map(([alert]) => alert)).toEqual([`member:${t.member.user.id}:day:100`, `member:${t.member.user.id}:day:80`]);
    const event = await (await db()).outboundEvent.findFirstOrThrow({ where: { accountId: id, type: "budget.threshold" } });
    expect(event.payload).toMatchObject({
      data: { scope: "member", memberId: t.member.user.id, memberEmail: t.member.user.email, period: "day", cap: 30, spent: 30 },
    });
    // Mailed to the owner and the admin, naming the member; the member gets none.
    const prisma = await db();
    await waitUntil(
      "the alert mails",
      async () => (await prisma.emailLog.count({ where: { to: t.owner.user.email!, type: "alert" } })) >= 2,
    );
    const mail = await prisma.emailLog.findFirstOrThrow({
      where: { to: t.admin.user.email!, type: "alert" },
      orderBy: { createdAt: "asc" },
    });
    expect(mail.subject).toMatch(/of their daily cap/);
    expect(await prisma.emailLog.count({ where: { to: t.member.user.email!, type: "alert" } })).toBe(0);
    // Raised to 45: the next charge reaches 100% of the new cap, which fires again.
    expect((await capOf({ dailyCap: 45 })).status).toBe(200);
    expect((await chatAs(t.member, id)).status).toBe(200);
    await waitUntil("the re-armed cap alerts", async () => (await alerts()).length >= 4);
    expect((await alerts()).filter(([, period]) => String(period).endsWith("@45")).map(([alert]) => alert)).toEqual([
      `member:${t.member.user.id}:day:100`,
      `member:${t.member.user.id}:day:80`,
    ]);
  });

  it("a member's own key is held to the team budget as their session is", async () => {
    const t = await team();
    await grant(operator.cookie, t.orgId, 1_000);
    expect((await patchOrg(t.orgId, t.owner, { dailyBudget: 20 })).status).toBe(200);
    const made = await call(keys.POST, { path: "/api/keys", cookie: t.member.cookie, headers: actingAs(t.orgId), body: { name: "mine" } });
    const ask = () =>
      v1(completions.POST, "/v1/chat/completions", made.body.secret, {
        body: { model: "gpt-4o-mini", messages: hello.messages, max_tokens: 10 },
      });
    const answers = [await ask(), await ask(), await ask()];
    expect(answers[0].status).toBe(200);
    expect(answers.at(-1)?.status).toBe(429);
    expect((await wallet(t.orgId, t.owner)).spentToday).toBeLessThanOrEqual(20);
  });
});
