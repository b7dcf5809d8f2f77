import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as chat from "@/app/api/ai/chat/route";
import * as member from "@/app/api/orgs/[id]/members/[userId]/route";
import * as orgs from "@/app/api/orgs/route";
import { closeDb, db, dbKind } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call } from "@/tests/helpers/http";
import { useFreshPostgres } from "@/tests/helpers/pg";
import { useStubProvider } from "@/tests/integration/ai/ai-test-kit";
import { actingAs, grant, join, operatorCookie, person, type Person } from "@/tests/integration/organisations/org-test-kit";

/**
 * An organisation's wallet under concurrency on a real PostgreSQL: 8 members each make 16 calls at
 * once against a wallet worth 50 calls, each member capped at 10 calls a day. The wallet, each
 * member's cap and the ledger hold together: exactly 50 charged, nobody past 10, never negative.
 */
process.env.DATABASE_POOL_MAX = "64";
await useFreshPostgres();
const { stub, restore } = await useStubProvider();
// Every member's 16 calls reach the charge: the cap on AI requests in progress is raised past them.
const undo = setEnv({ AI_MAX_CONCURRENT_PER_USER: "100", ADMIN_EMAILS: "pg-org-operator@example.com" });
afterAll(async () => {
  undo();
  restore();
  await stub.close();
  await closeDb();
});

const MEMBERS = 8;
const CALLS = 16;
const PRICE = 15;
const hello = { messages: [{ role: "user", content: "Hello there" }] };

let operator: string;
beforeAll(async () => {
  operator = await operatorCookie("pg-org-operator@example.com");
});

describe("an organisation's wallet and member caps under concurrency (PostgreSQL)", () => {
  it("runs on PostgreSQL", async () => {
    expect(await dbKind()).toBe("postgres");
  });

  it(`${MEMBERS} members x ${CALLS} concurrent calls, wallet worth 50 calls, caps worth 10: exactly 50 charged, nobody over 10, ledger = sum of charges`, async () => {
    const owner = await person("pg-owner");
    const id = (await call(orgs.POST, { path: "/api/orgs", cookie: owner.cookie, body: { name: "Concurrency Ltd" } })).body.organisation
      .id as string;
    const team: Person[] = [];
    for (let i = 0; i < MEMBERS; i++) {
      const p = await person(`pg-member${i}`);
      await join(id, owner, p);
      const capped = await call(member.PATCH, {
        method: "PATCH",
        path: `/api/orgs/${id}/members/${p.user.id}`,
        params: { id, userId: p.user.id },
        cookie: owner.cookie,
        body: { dailyCap: 10 * PRICE },
      });
      expect(capped.status).toBe(200);
      team.push(p);
    }
    await grant(operator, id, 50 * PRICE);
    const results = await Promise.all(
      team.flatMap((p) =>
        Array.from({ length: CALLS }, () =>
          call(chat.POST, { path: "/api/ai/chat", cookie: p.cookie, headers: actingAs(id), body: hello }).then((r) => ({ p, r })),
        ),
      ),
    );
    const ok = results.filter((x) => x.r.status === 200);
    const refused = results.filter((x) => x.r.status !== 200);
    expect(refused.every((x) => x.r.status === 402 || x.r.status === 429)).toBe(true);
    expect(ok).toHaveLength(50);
    const perMember = team.map((p) => ok.filter((x) => x.p === p).length);
    expect(Math.max(...perMember)).toBeLessThanOrEqual(10);
    expect(perMember.reduce((a, b) => a + b, 0)).toBe(50);
    // Each refusal says which limit: the member's cap (429) or the wallet (402).
    for (const x of refused) expect(x.r.body.error).toMatch(x.r.status === 429 ? /cap in this organisation/ : /Insufficient credits/);

    const prisma = await db();
    const balance = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: id } });
    expect(balance.subscriptionCredits).toBe(0);
    const ledger = await prisma.creditTransaction.aggregate({ where: { userId: id }, _sum: { amount: true } });
    expect(ledger._sum.amount).toBe(0);
    const usage = await prisma.creditTransaction.findMany({ where: { userId: id, type: "usage" }, select: { balanceAfter: true } });
    expect(usage).toHaveLength(50);
    expect(Math.min(...usage.map((u) => u.balanceAfter))).toBeGreaterThanOrEqual(0);
    // The charges name their members, and each member's window counted exactly their charges.
    const charges = await prisma.creditOperation.groupBy({
      by: ["memberId"],
      where: { userId: id, kind: "charge", status: "settled" },
      _sum: { amount: true },
      _count: true,
    });
    const rows = await prisma.organisationMember.findMany({ where: { organisationId: id, role: "member" } });
    for (const p of team) {
      const counted = charges.find((c) => c.memberId === p.user.id);
      const row = rows.find((r) => r.userId === p.user.id);
      expect(row?.daySpent ?? 0).toBe(counted?._sum.amount ?? 0);
      expect(row?.daySpent ?? 0).toBeLessThanOrEqual(10 * PRICE);
    }
    expect(stub.count()).toBe(50);
  });

  it("a refund gives back to the wallet and the member's cap alike", async () => {
    const owner = await person("pg-refund-owner");
    const id = (await call(orgs.POST, { path: "/api/orgs", cookie: owner.cookie, body: { name: "Refund Ltd" } })).body.organisation
      .id as string;
    await grant(operator, id, 10 * PRICE);
    await call(member.PATCH, {
      method: "PATCH",
      path: `/api/orgs/${id}/members/${owner.user.id}`,
      params: { id, userId: owner.user.id },
      cookie: owner.cookie,
      body: { monthlyCap: 2 * PRICE },
    });
    stub.next("chat", { kind: "error", status: 400, message: "bad request upstream" }, 10);
    const failed = await call(chat.POST, { path: "/api/ai/chat", cookie: owner.cookie, headers: actingAs(id), body: hello });
    expect(failed.status).toBeGreaterThanOrEqual(400);
    expect(stub.count("chat")).toBeGreaterThan(0);
    const prisma = await db();
    const row = await prisma.organisationMember.findUniqueOrThrow({
      where: { organisationId_userId: { organisationId: id, userId: owner.user.id } },
    });
    expect(row.monthSpent).toBe(0);
    expect((await prisma.creditBalance.findUniqueOrThrow({ where: { userId: id } })).subscriptionCredits).toBe(10 * PRICE);
  });

  it(`a daily team budget worth 20 calls under ${MEMBERS} members x ${CALLS} concurrent calls: exactly 20 charged, the window = the ledger`, async () => {
    // Whatever an earlier test left queued (failures it did not use up) is cleared: every call here reaches the provider's answer.
    stub.reset();
    const owner = await person("pg-budget-owner");
    const id = (await call(orgs.POST, { path: "/api/orgs", cookie: owner.cookie, body: { name: "Budget Ltd" } })).body.organisation
      .id as string;
    const team: Person[] = [];
    for (let i = 0; i < MEMBERS; i++) {
      const p = await person(`pg-budget-member${i}`);
      await join(id, owner, p);
      team.push(p);
    }
    await grant(operator, id, 50 * PRICE);
    const { PATCH } = await import("@/app/api/orgs/[id]/route");
    const set = await call(PATCH, {
      method: "PATCH",
      path: `/api/orgs/${id}`,
      params: { id },
      cookie: owner.cookie,
      body: { dailyBudget: 20 * PRICE },
    });
    expect(set.status).toBe(200);
    const results = await Promise.all(
      team.flatMap((p) =>
        Array.from({ length: CALLS }, () =>
          call(chat.POST, { path: "/api/ai/chat", cookie: p.cookie, headers: actingAs(id), body: hello }),
        ),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(20);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(429);
      expect(r.body.error).toMatch(/organisation's daily budget is used up/);
    }
    const prisma = await db();
    const balance = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: id } });
    const charged = await prisma.creditOperation.aggregate({
      where: { userId: id, kind: "charge", status: "settled" },
      _sum: { amount: true },
    });
    expect(charged._sum.amount).toBe(20 * PRICE);
    expect(balance.budgetDaySpent).toBe(20 * PRICE);
    expect(balance.subscriptionCredits).toBe(30 * PRICE);
  });
});
