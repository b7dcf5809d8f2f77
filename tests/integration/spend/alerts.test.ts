import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as alerts from "@/app/api/alerts/route";
import * as chat from "@/app/api/ai/chat/route";
import * as endpoints from "@/app/api/webhook-endpoints/route";
import * as endpoint from "@/app/api/webhook-endpoints/[id]/route";
import * as testEvent from "@/app/api/webhook-endpoints/[id]/test/route";
import * as usage from "@/app/api/usage/route";
import * as requestUsage from "@/app/api/usage/requests/[id]/route";
import * as completions from "@/app/v1/chat/completions/route";
import * as keyRoute from "@/app/api/keys/[id]/route";
import * as history from "@/app/api/credits/history/route";
import { db } from "@/lib/db/client";
import { drainOutbound } from "@/lib/outbound/deliver-outbound";
import { alertSettingsOf } from "@/lib/spend-alerts/alert-settings";
import { projectedOverrunFirings } from "@/lib/spend-alerts/pace-alerts";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { waitUntil } from "@/tests/helpers/wait-until";
import { startWebhookReceiver, verifyStandardWebhook, type WebhookReceiver } from "@/tests/helpers/webhook-receiver";
import { stubProviderForFile } from "../ai/ai-test-kit";
import { userWithKey, v1 } from "../api-keys/key-test-kit";
import { actingAs, grant, operatorCookie, team } from "../organisations/org-test-kit";

const stub = await stubProviderForFile();

let receiver: WebhookReceiver;
let restore: () => void;
let operator: string;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  restore = setEnv({ ADMIN_EMAILS: "alerts-operator@example.com" });
  operator = await operatorCookie("alerts-operator@example.com");
});
afterAll(async () => {
  restore();
  await receiver.close();
});

const hello = { messages: [{ role: "user", content: "Hello there" }] };
const events = (accountId: string, type?: string) =>
  receiver.received.filter((r) => (r.json as { accountId?: string }).accountId === accountId && (!type || r.json.type === type));
const ALERT_EVENTS = ["budget.threshold", "credits.low", "credits.depleted"];

async function fired(accountId: string, n: number) {
  await waitUntil(
    `${n} alerts of ${accountId} to be written`,
    async () => (await (await db()).alertFiring.count({ where: { accountId } })) >= n,
  );
  await drainOutbound();
}

describe("spend alerts", () => {
  it("a free account's charges fire 80% of the allocation, low balance and depletion once each, by webhook and email", async () => {
    const { user, cookie } = await signIn();
    await call(endpoints.POST, { path: "/api/webhook-endpoints", cookie, body: { url: receiver.url, events: ALERT_EVENTS } });
    const defaults = await call(alerts.GET, { path: "/api/alerts", cookie });
    expect(defaults.body).toEqual({
      alerts: { allocationThresholds: [80, 100], lowBalance: 50, email: true, hourlySpendLimit: null, projectedOverrun: true },
      fired: [],
    });
    // 13 chats of 15 credits use 195 of 200; the 14th is refused.
    for (let i = 0; i < 13; i++) expect((await call(chat.POST, { path: "/api/ai/chat", cookie, body: hello })).status).toBe(200);
    expect((await call(chat.POST, { path: "/api/ai/chat", cookie, body: hello })).status).toBe(402);
    await fired(user.id, 3);
    await waitUntil("three alert events delivered", async () => events(user.id).length >= 3);
    const got = events(user.id).map((r) => [r.json.type, r.json.data.alert]);
    expect(got).toEqual([
      ["budget.threshold", "allocation:80"],
      ["credits.low", "low"],
      ["credits.depleted", "depleted"],
    ]);
    expect(events(user.id, "budget.threshold")[0].json.data).toMatchObject({
      scope: "allocation",
      threshold: 80,
      used: 165,
      allocation: 200,
      balance: 35,
    });
    expect(events(user.id, "credits.low")[0].json.data).toMatchObject({ balance: 35, level: 50 });
    const prisma = await db();
    await waitUntil("three alert emails", async () => (await prisma.emailLog.count({ where: { to: user.email!, type: "alert" } })) === 3);
    const low = await prisma.emailLog.findFirstOrThrow({ where: { to: user.email!, subject: "Your credits are running low" } });
    expect(low.status).toBe("sent");
    // Never twice in the period: more refusals fire nothing.
    await call(chat.POST, { path: "/api/ai/chat", cookie, body: hello });
    await new Promise((r) => setTimeout(r, 50));
    expect(await prisma.alertFiring.count({ where: { accountId: user.id } })).toBe(3);
    const listed = await call(alerts.GET, { path: "/api/alerts", cookie });
    expect(listed.body.fired.map((f: { alert: string }) => f.alert).sort()).toEqual(["allocation:80", "depleted", "low"]);

    // A top-up starts a new period for low balance: falling under 50 again fires again.
    await grant(operator, user.id, 100);
    for (let i = 0; i < 4; i++) expect((await call(chat.POST, { path: "/api/ai/chat", cookie, body: hello })).status).toBe(200);
    await fired(user.id, 4);
    await waitUntil("the second credits.low", async () => events(user.id, "credits.low").length === 2);
    expect(await prisma.alertFiring.count({ where: { accountId: user.id, alert: "allocation:80" } })).toBe(1);
  });

  it("fires on settled spend: a call the provider failed (refunded) fires nothing; the next one that settles does", async () => {
    const { user, cookie } = await signIn();
    // 10 chats of 15 use 150 of 200 (75%); the 11th would reach 165 (82.5%).
    for (let i = 0; i < 10; i++) expect((await call(chat.POST, { path: "/api/ai/chat", cookie, body: hello })).status).toBe(200);
    // The JSON chat goes upstream streamed: its provider call fails, nothing is billed, the charge is refunded.
    stub.next("stream", { kind: "error", status: 500 });
    expect((await call(chat.POST, { path: "/api/ai/chat", cookie, body: hello })).status).toBe(503);
    await new Promise((r) => setTimeout(r, 100));
    const prisma = await db();
    expect(await prisma.alertFiring.count({ where: { accountId: user.id } })).toBe(0);
    expect((await call(chat.POST, { path: "/api/ai/chat", cookie, body: hello })).status).toBe(200);
    await fired(user.id, 1);
    expect((await prisma.alertFiring.findFirstOrThrow({ where: { accountId: user.id } })).alert).toBe("allocation:80");
  });

  it("changes its thresholds; 100% of a key's budget fires once for the key; an organisation's member may not change them", async () => {
    const { user, cookie, secret, key } = await userWithKey({ budget: { credits: 30, period: "total" } });
    await call(endpoints.POST, { path: "/api/webhook-endpoints", cookie, body: { url: receiver.url, events: ["budget.threshold"] } });
    const put = await call(alerts.PUT, {
      method: "PUT",
      path: "/api/alerts",
      cookie,
      body: { allocationThresholds: [50], lowBalance: 0, email: false },
    });
    expect(put.status).toBe(200);
    expect(put.body.alerts).toEqual({
      allocationThresholds: [50],
      lowBalance: 0,
      email: false,
      hourlySpendLimit: null,
      projectedOverrun: true,
    });
    expect((await call(alerts.PUT, { method: "PUT", path: "/api/alerts", cookie, body: { allocationThresholds: [150] } })).status).toBe(
      400,
    );
    const body = { model: "gpt-4o", messages: [{ role: "user", content: "hi" }], max_tokens: 10 };
    expect((await v1(completions.POST, "/v1/chat/completions", secret, { body })).status).toBe(200);
    expect((await v1(completions.POST, "/v1/chat/completions", secret, { body })).status).toBe(200);
    expect((await v1(completions.POST, "/v1/chat/completions", secret, { body })).status).toBe(429);
    await fired(user.id, 1);
    await waitUntil("the key's budget alert", async () => events(user.id, "budget.threshold").length === 1);
    expect(events(user.id, "budget.threshold")[0].json.data).toMatchObject({
      scope: "key",
      keyId: key.id,
      threshold: 100,
      spent: 30,
      budget: 30,
    });
    expect(await (await db()).emailLog.count({ where: { to: user.email!, type: "alert" } })).toBe(0);
    // Raising the budget starts the count afresh and re-arms the alert: it fires again at the new 100%.
    const raised = await call(keyRoute.PATCH, {
      method: "PATCH",
      path: `/api/keys/${key.id}`,
      params: { id: key.id },
      cookie,
      body: { budget: { credits: 45, period: "total" } },
    });
    expect(raised.status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await v1(completions.POST, "/v1/chat/completions", secret, { body })).status).toBe(200);
    expect((await v1(completions.POST, "/v1/chat/completions", secret, { body })).status).toBe(429);
    await fired(user.id, 2);
    await waitUntil("the key's second budget alert", async () => events(user.id, "budget.threshold").length === 2);
    expect(events(user.id, "budget.threshold")[1].json.data).toMatchObject({ scope: "key", keyId: key.id, spent: 45, budget: 45 });
    const listed = await call(alerts.GET, { path: "/api/alerts", cookie });
    expect(listed.body.fired.map((f: { period: string }) => f.period).sort()).toEqual(["total@30", "total@45"]);

    const t = await team();
    expect(
      (
        await call(alerts.PUT, {
          method: "PUT",
          path: "/api/alerts",
          cookie: t.member.cookie,
          headers: actingAs(t.orgId),
          body: { lowBalance: 10 },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await call(alerts.PUT, {
          method: "PUT",
          path: "/api/alerts",
          cookie: t.admin.cookie,
          headers: actingAs(t.orgId),
          body: { lowBalance: 10 },
        })
      ).status,
    ).toBe(200);
    expect(
      (await call(alerts.GET, { path: "/api/alerts", cookie: t.member.cookie, headers: actingAs(t.orgId) })).body.alerts.lowBalance,
    ).toBe(10);
  });
});

describe("alerts on the pace of spending, and Slack-compatible endpoints", () => {
  it("spend.rate fires once in an hour whose settled credits reach hourlySpendLimit, by webhook and email; 0 turns it off; bad values are refused", async () => {
    const { user, cookie } = await signIn();
    await call(endpoints.POST, { path: "/api/webhook-endpoints", cookie, body: { url: receiver.url, events: ["spend.rate"] } });
    const bad = await call(alerts.PUT, { method: "PUT", path: "/api/alerts", cookie, body: { hourlySpendLimit: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/hourlySpendLimit/);
    const set = await call(alerts.PUT, { method: "PUT", path: "/api/alerts", cookie, body: { hourlySpendLimit: 15 } });
    expect(set.status).toBe(200);
    expect(set.body.alerts).toMatchObject({ hourlySpendLimit: 15, projectedOverrun: true, allocationThresholds: [80, 100] });
    expect((await call(chat.POST, { path: "/api/ai/chat", cookie, body: hello })).status).toBe(200);
    await waitUntil("spend.rate delivered", async () => {
      await drainOutbound();
      return events(user.id, "spend.rate").length >= 1;
    });
    const first = events(user.id, "spend.rate")[0].json.data;
    expect(first).toMatchObject({ alert: "rate:hour", limit: 15, spent: 15 });
    // Once per hour: another charge in the same hour fires nothing more.
    expect((await call(chat.POST, { path: "/api/ai/chat", cookie, body: hello })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 100));
    const prisma = await db();
    expect(await prisma.alertFiring.count({ where: { accountId: user.id, alert: "rate:hour", period: String(first.hourStart) } })).toBe(1);
    await waitUntil(
      "the spend.rate mail",
      async () => (await prisma.emailLog.count({ where: { to: user.email!, subject: { contains: "within the hour" } } })) === 1,
    );
    const off = await call(alerts.PUT, { method: "PUT", path: "/api/alerts", cookie, body: { hourlySpendLimit: 0 } });
    expect(off.body.alerts.hourlySpendLimit).toBeNull();
  });

  it("credits.projected_overrun speaks when the cycle's pace spends more than the balance before it ends: not in the cycle's first day, not on few calls, at most every 10 minutes, and not when turned off", async () => {
    const { user, cookie } = await signIn();
    for (let i = 0; i < 10; i++) expect((await call(chat.POST, { path: "/api/ai/chat", cookie, body: hello })).status).toBe(200);
    const prisma = await db();
    const balance = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
    const resetAt = balance.resetAt as Date;
    // 150 of the 200 credits spent: 50 left.
    const settled = {
      accountId: user.id,
      charged: 15,
      subscriptionCredits: 50,
      remaining: 50,
      allowance: { tier: "free", monthlyAllocation: 200, resetAt, usableBonusCredits: 0 },
    };
    const settings = await alertSettingsOf(user.id);
    expect(await projectedOverrunFirings(settled, settings, resetAt.getTime() + 3_600_000)).toEqual([]);
    const [firing] = await projectedOverrunFirings(settled, settings, resetAt.getTime() + 2 * 86_400_000);
    expect(firing).toMatchObject({ alert: "projection", type: "credits.projected_overrun", period: resetAt.toISOString() });
    expect(firing.data).toMatchObject({ spent: 150, balance: 50 });
    expect(Number(firing.data.projected) - 150).toBeGreaterThan(50);
    // Read at most every 10 minutes per account.
    expect(await projectedOverrunFirings(settled, settings, resetAt.getTime() + 2 * 86_400_000 + 60_000)).toEqual([]);
    // Turned off.
    expect(
      await projectedOverrunFirings(settled, { ...settings, projectedOverrun: false }, resetAt.getTime() + 2 * 86_400_000 + 700_000),
    ).toEqual([]);
    // Too few calls to read a pace from.
    const few = await signIn();
    expect((await call(chat.POST, { path: "/api/ai/chat", cookie: few.cookie, body: hello })).status).toBe(200);
    const fewBalance = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: few.user.id } });
    expect(
      await projectedOverrunFirings(
        { ...settled, accountId: few.user.id, allowance: { ...settled.allowance, resetAt: fewBalance.resetAt as Date } },
        settings,
        (fewBalance.resetAt as Date).getTime() + 2 * 86_400_000,
      ),
    ).toEqual([]);
  });

  it("a Slack-compatible endpoint gets {text} in the alert's words, signed like any other; the format is shown, changed and checked", async () => {
    const { user, cookie } = await signIn();
    const bad = await call(endpoints.POST, {
      path: "/api/webhook-endpoints",
      cookie,
      body: { url: receiver.url, events: ["spend.rate"], format: "teams" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/format/);
    const created = await call(endpoints.POST, {
      path: "/api/webhook-endpoints",
      cookie,
      body: { url: receiver.url, events: ["spend.rate"], format: "slack" },
    });
    expect(created.status).toBe(200);
    expect(created.body.endpoint.format).toBe("slack");
    const id = created.body.endpoint.id as string;
    const before = receiver.received.length;
    expect((await call(testEvent.POST, { path: `/api/webhook-endpoints/${id}/test`, params: { id }, cookie })).status).toBe(200);
    await call(alerts.PUT, { method: "PUT", path: "/api/alerts", cookie, body: { hourlySpendLimit: 15 } });
    expect((await call(chat.POST, { path: "/api/ai/chat", cookie, body: hello })).status).toBe(200);
    await waitUntil("two Slack deliveries", async () => {
      await drainOutbound();
      return receiver.received.length - before >= 2;
    });
    const got = receiver.received.slice(before).filter((r) => typeof (r.json as unknown as { text?: string }).text === "string");
    expect(got).toHaveLength(2);
    const texts = got.map((r) => (r.json as unknown as { text: string }).text);
    expect(Object.keys(got[0].json)).toEqual(["text"]);
    expect(texts[0]).toMatch(/^\*webhook\.test\*/);
    expect(texts[1]).toMatch(/15 credits spent within the hour/);
    expect(texts[1]).toMatch(/<http.*\/dashboard\/credits\|Buy more credits/);
    for (const r of got) expect(verifyStandardWebhook(created.body.secret, r.headers, r.body)).toBe(true);
    const changed = await call(endpoint.PATCH, {
      method: "PATCH",
      path: `/api/webhook-endpoints/${id}`,
      params: { id },
      cookie,
      body: { format: "standard" },
    });
    expect(changed.body.endpoint.format).toBe("standard");
    expect(user.id).toBeTruthy();
  });
});

describe("request tags and the usage API", () => {
  it("stores /v1's user, metadata and X-Request-Tags on the ledger row, and groups spend by them, by day (stacked by model), model and key, JSON and CSV", async () => {
    const { user, cookie, secret, key } = await userWithKey();
    const body = {
      model: "gpt-4o",
      messages: [{ role: "user", content: "hi" }],
      max_tokens: 10,
      user: "end-user-7",
      metadata: { feature: "search" },
    };
    const tagged = await v1(completions.POST, "/v1/chat/completions", secret, { body, headers: { "x-request-tags": "team-a, exp:1" } });
    expect(tagged.status).toBe(200);
    expect(
      (await v1(completions.POST, "/v1/chat/completions", secret, { body: { ...body, user: undefined, metadata: undefined } })).status,
    ).toBe(200);
    expect((await call(chat.POST, { path: "/api/ai/chat", cookie, body: hello })).status).toBe(200);
    const prisma = await db();
    const row = await prisma.creditTransaction.findFirstOrThrow({
      where: { userId: user.id, type: "usage" },
      orderBy: { createdAt: "asc" },
    });
    expect(row.metadata).toMatchObject({ tags: ["team-a", "exp:1"], endUser: "end-user-7", requestMetadata: { feature: "search" } });
    // The history's CSV carries them too (the key, the tags, the end user, the metadata as JSON).
    const exported = await call(history.GET, { path: "/api/credits/history?format=csv", cookie });
    const [header, ...csvLines] = exported.text.trim().split("\r\n");
    expect(header.split(",").slice(-5)).toEqual(["apiKeyId", "memberId", "tags", "endUser", "requestMetadata"]);
    const taggedLine = csvLines.find((l) => l.startsWith(`${row.id},`)) as string;
    expect(taggedLine.endsWith(`,${key.id},,team-a exp:1,end-user-7,"{""feature"":""search""}"`)).toBe(true);

    const bad = await v1(completions.POST, "/v1/chat/completions", secret, { body, headers: { "x-request-tags": "ok,not ok" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/X-Request-Tags/);
    const badMeta = await v1(completions.POST, "/v1/chat/completions", secret, { body: { ...body, metadata: { feature: 7 } } });
    expect(badMeta.status).toBe(400);

    const byTag = await call(usage.GET, { path: "/api/usage?group_by=tag", cookie });
    expect(byTag.status).toBe(200);
    const tagCredits = Object.fromEntries(byTag.body.rows.map((r: { label: string; credits: number }) => [r.label, r.credits]));
    expect(tagCredits["team-a"]).toBeGreaterThan(0);
    expect(tagCredits["exp:1"]).toBe(tagCredits["team-a"]);
    expect(tagCredits.untagged).toBeGreaterThan(0);
    expect(byTag.body.total.calls).toBe(3);
    const byKey = await call(usage.GET, { path: "/api/usage?group_by=key", cookie });
    expect(byKey.body.rows.map((r: { group: string | null; label: string }) => [r.group, r.label])).toEqual([
      [key.id, "test key"],
      [null, "session (no key)"],
    ]);
    // By end user (OpenAI's `user` field): the tagged call's, and the rest under null.
    const byEndUser = await call(usage.GET, { path: "/api/usage?group_by=end_user", cookie });
    expect(byEndUser.status).toBe(200);
    expect(byEndUser.body.rows.map((r: { group: string | null; label: string; calls: number }) => [r.group, r.label, r.calls])).toEqual([
      ["end-user-7", "end-user-7", 1],
      [null, "no end user", 2],
    ]);
    // Day buckets in a time zone: 26 hours apart, Kiribati's and Baker Island's dates always differ.
    const dayIn = async (tz: string) => {
      const res = await call(usage.GET, { path: `/api/usage?group_by=day&tz=${encodeURIComponent(tz)}`, cookie });
      expect(res.status).toBe(200);
      expect(res.body.timeZone).toBe(tz);
      return res.body.rows.map((r: { group: string }) => r.group);
    };
    const localDate = (tz: string) => new Intl.DateTimeFormat("en-CA", { timeZone: tz }).format(new Date());
    expect(await dayIn("Etc/GMT-14")).toEqual([localDate("Etc/GMT-14")]);
    expect(await dayIn("Etc/GMT+12")).toEqual([localDate("Etc/GMT+12")]);
    const badZone = await call(usage.GET, { path: "/api/usage?group_by=day&tz=Mars/Olympus", cookie });
    expect(badZone.status).toBe(400);
    expect(badZone.body.error).toMatch(/tz: "Mars\/Olympus" is not an IANA time zone/);
    const byDay = await call(usage.GET, { path: "/api/usage?group_by=day&stack=model", cookie });
    const today = new Date().toISOString().slice(0, 10);
    expect(byDay.body.rows.every((r: { group: string }) => r.group === today)).toBe(true);
    expect(byDay.body.rows.reduce((s: number, r: { credits: number }) => s + r.credits, 0)).toBe(byDay.body.total.credits);
    expect(byDay.body.projection).toMatchObject({ allocation: 200, spent: byDay.body.total.credits });
    // Three calls in the cycle's first minutes are no pace: nothing is projected.
    expect(byDay.body.projection.projected).toBeNull();
    // A day into the cycle, with ten calls, the pace speaks.
    // (The calls first, then the clock moved: a free account's cycle that started before this month would
    // be rolled over by its next charge, so on the 1st or 2nd of a month the cycle cannot be moved first.)
    const short = { ...body, user: undefined, metadata: undefined };
    for (let i = 0; i < 7; i++) expect((await v1(completions.POST, "/v1/chat/completions", secret, { body: short })).status).toBe(200);
    await prisma.creditBalance.update({ where: { userId: user.id }, data: { resetAt: new Date(Date.now() - 2 * 86_400_000) } });
    await prisma.$executeRaw`UPDATE credit_operations SET created_at = now() - interval '1 day' WHERE user_id = ${user.id}`;
    const paced = (await call(usage.GET, { path: "/api/usage?group_by=day", cookie })).body.projection;
    expect(paced.projected).toBeGreaterThan(paced.spent);
    const csv = await call(usage.GET, { path: "/api/usage?group_by=model&format=csv", cookie });
    expect(csv.headers.get("content-type")).toContain("text/csv");
    expect(csv.text.split("\r\n")[0]).toBe("model,label,calls,credits,costUsd,promptTokens,completionTokens");
    expect((await call(usage.GET, { path: "/api/usage?group_by=week", cookie })).status).toBe(400);
    expect((await call(usage.GET, { path: "/api/usage?group_by=model&stack=key", cookie })).status).toBe(400);
    expect((await call(usage.GET, { path: "/api/usage" })).status).toBe(401);
  });

  it("groups by a request metadata key, sums tokens per group, pages every grouping, and finds one call by its completion id", async () => {
    const { cookie, secret, key } = await userWithKey();
    const ask = (metadata?: Record<string, string>, user?: string) =>
      v1(completions.POST, "/v1/chat/completions", secret, {
        body: { model: "gpt-4o", messages: [{ role: "user", content: "hi" }], max_tokens: 10, metadata, user },
      });
    const calls = [
      await ask({ project: "alpha" }, "u1"),
      await ask({ project: "alpha" }, "u2"),
      await ask({ project: "beta" }, "u3"),
      await ask({ other: "x" }, "u4"),
    ];
    for (const c of calls) expect(c.status).toBe(200);
    const tokens = (c: (typeof calls)[number]) => [c.body.usage.prompt_tokens, c.body.usage.completion_tokens] as [number, number];
    const sum = (cs: typeof calls) => cs.map(tokens).reduce(([p, q], [a, b]) => [p + a, q + b], [0, 0]);

    const byProject = await call(usage.GET, { path: "/api/usage?group_by=metadata&metadata_key=project", cookie });
    expect(byProject.status).toBe(200);
    expect(byProject.body.metadataKey).toBe("project");
    const rows = byProject.body.rows as {
      group: string | null;
      label: string;
      calls: number;
      promptTokens: number;
      completionTokens: number;
    }[];
    expect(rows.map((r) => [r.group, r.label, r.calls])).toEqual([
      ["alpha", "alpha", 2],
      ["beta", "beta", 1],
      [null, "no project", 1],
    ]);
    expect([rows[0].promptTokens, rows[0].completionTokens]).toEqual(sum(calls.slice(0, 2)));
    expect(rows[0].promptTokens).toBeGreaterThan(0);
    expect([byProject.body.total.promptTokens, byProject.body.total.completionTokens]).toEqual(sum(calls));
    const needsKey = await call(usage.GET, { path: "/api/usage?group_by=metadata", cookie });
    expect(needsKey.status).toBe(400);
    expect(needsKey.body.error).toMatch(/metadata_key: required with group_by=metadata/);
    expect((await call(usage.GET, { path: "/api/usage?group_by=model&metadata_key=project", cookie })).status).toBe(400);

    // Pages: 4 end users, 3 per page; the total is every page's; the cursor is ours only.
    const first = await call(usage.GET, { path: "/api/usage?group_by=end_user&limit=3", cookie });
    expect(first.body.rows.map((r: { group: string }) => r.group)).toEqual(["u1", "u2", "u3"]);
    expect(first.body.total.calls).toBe(4);
    expect(typeof first.body.nextCursor).toBe("string");
    const second = await call(usage.GET, { path: `/api/usage?group_by=end_user&limit=3&cursor=${first.body.nextCursor}`, cookie });
    expect(second.body.rows.map((r: { group: string }) => r.group)).toEqual(["u4"]);
    expect(second.body.nextCursor).toBeNull();
    const csvPage = await call(usage.GET, { path: "/api/usage?group_by=end_user&limit=2&format=csv", cookie });
    expect(csvPage.text.trim().split("\r\n")).toHaveLength(3);
    expect(csvPage.text.split("\r\n")[0]).toBe("end_user,label,calls,credits,costUsd,promptTokens,completionTokens");
    expect(csvPage.headers.get("x-next-cursor")).toBeTruthy();
    expect((await call(usage.GET, { path: "/api/usage?group_by=model&cursor=bm9wZQ", cookie })).body.error).toMatch(/cursor/);
    expect((await call(usage.GET, { path: "/api/usage?group_by=model&limit=0", cookie })).status).toBe(400);
    expect((await call(usage.GET, { path: "/api/usage?group_by=model&limit=5001", cookie })).status).toBe(400);

    // One call by its completion id: its credits (what the answer said), tokens, key and tags.
    const one = calls[2];
    expect(one.body.id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
    const found = await call(requestUsage.GET, { path: `/api/usage/requests/${one.body.id}`, cookie, params: { id: one.body.id } });
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({
      completionId: one.body.id,
      status: "settled",
      credits: one.body.usage.credits_charged,
      promptTokens: one.body.usage.prompt_tokens,
      completionTokens: one.body.usage.completion_tokens,
      apiKeyId: key.id,
      endUser: "u3",
      requestMetadata: { project: "beta" },
    });
    expect(found.body.costUsd).toBeGreaterThan(0);
    const byChargeId = await call(requestUsage.GET, {
      path: `/api/usage/requests/${found.body.id}`,
      cookie,
      params: { id: found.body.id },
    });
    expect(byChargeId.body.completionId).toBe(one.body.id);
    // Another account's call, an unknown id and a malformed one: 404 alike; no session: 401.
    const stranger = await signIn(`usage-stranger-${Date.now()}@example.com`);
    for (const id of [one.body.id, "chatcmpl-00000000000000000000000000000000", "nonsense"]) {
      const res = await call(requestUsage.GET, { path: `/api/usage/requests/${id}`, cookie: stranger.cookie, params: { id } });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatch(/No charge with this id/);
    }
    expect((await call(requestUsage.GET, { path: `/api/usage/requests/${one.body.id}`, params: { id: one.body.id } })).status).toBe(401);
  });

  it("an organisation's member sees their own spend; the owner and admins everyone's, by member", async () => {
    const t = await team();
    await grant(operator, t.orgId, 200);
    await call(chat.POST, { path: "/api/ai/chat", cookie: t.member.cookie, headers: actingAs(t.orgId), body: hello });
    await call(chat.POST, { path: "/api/ai/chat", cookie: t.admin.cookie, headers: actingAs(t.orgId), body: hello });
    const all = await call(usage.GET, { path: "/api/usage?group_by=member", cookie: t.owner.cookie, headers: actingAs(t.orgId) });
    expect(all.body.rows.map((r: { label: string }) => r.label).sort()).toEqual([t.admin.user.email, t.member.user.email].sort());
    const mine = await call(usage.GET, { path: "/api/usage?group_by=member", cookie: t.member.cookie, headers: actingAs(t.orgId) });
    expect(mine.body.rows.map((r: { label: string }) => r.label)).toEqual([t.member.user.email]);
  });
});
