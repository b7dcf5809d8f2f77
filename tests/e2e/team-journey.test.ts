import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./client";
import { removeDir, startServer, type RunningServer } from "./server";

/**
 * A team's day on the production server, over HTTP with the rate limits on, as the dashboard makes its
 * calls: the owner creates an organisation, invites a colleague (the link from the local mailbox), buys
 * it a plan in the checkout simulator and caps the member; the member spends from the wallet; then a
 * day of page views on the team pages. The dashboard's own reads (the account switcher, the
 * organisation's panels, the usage chart) never spend anyone's SPEC §8 `api` allowance and never
 * answer 429; the `api` routes still count as SPEC says.
 */
let server: RunningServer;
const json = { "content-type": "application/json" };

beforeAll(async () => {
  server = await startServer({ APP_ENV: "development" }, { dataDirPrefix: "svc-team-journey-" });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
});

/** The newest local mail to `to` (the server's own mailbox folder). */
function mailTo(to: string): { subject: string; text: string } {
  const dir = path.join(server.dataDir, "mail");
  const mails = readdirSync(dir)
    .filter((n) => n.endsWith(".json") && !n.startsWith("."))
    .sort()
    .reverse()
    .map((n) => JSON.parse(readFileSync(path.join(dir, n), "utf8")) as { to: string; subject: string; text: string });
  const mail = mails.find((m) => m.to === to);
  expect(mail, `a mail to ${to}`).toBeTruthy();
  return mail!;
}

describe("a team's day", () => {
  it("invite, buy, cap, spend; then 40 page views of the team pages answer without a 429 and leave the api allowance alone", async () => {
    const owner = new Client(server.baseUrl);
    const member = new Client(server.baseUrl);
    await owner.signIn("team-owner@example.com");
    await member.signIn("team-member@example.com");

    const created = await owner.json<{ organisation: { id: string } }>("/api/orgs", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ name: "Acme Research" }),
    });
    expect(created.status).toBe(200);
    const orgId = created.body.organisation.id;
    expect(
      (await owner.json("/api/account/active", { method: "PUT", headers: json, body: JSON.stringify({ accountId: orgId }) })).status,
    ).toBe(200);

    expect(
      (
        await owner.json(`/api/orgs/${orgId}/invites`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({ email: "team-member@example.com", role: "member" }),
        })
      ).status,
    ).toBe(200);
    const mail = mailTo("team-member@example.com");
    expect(mail.subject).toBe("Join Acme Research");
    const token = new URLSearchParams(/\/invite#(\S+)/.exec(mail.text)![1]).get("token")!;
    expect((await member.json("/api/invites/accept", { method: "POST", headers: json, body: JSON.stringify({ token }) })).status).toBe(200);

    // The owner buys the organisation a plan (the active account is the organisation).
    const checkout = await owner.json<{ checkoutUrl: string }>("/api/payments/create-checkout", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ variantId: "local-pro-monthly" }),
    });
    expect(checkout.status).toBe(200);
    const done = await fetch(`${server.baseUrl}/api/simulator/checkout`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ id: checkout.body.checkoutUrl.split("/").pop()! }).toString(),
      redirect: "manual",
    });
    expect(done.status).toBe(303);
    expect((await owner.json<{ tier: string }>("/api/ai/usage")).body.tier).toBe("pro");

    const members = await owner.json<{ members: { userId: string; email: string }[] }>(`/api/orgs/${orgId}/members`);
    const memberId = members.body.members.find((m) => m.email === "team-member@example.com")!.userId;
    expect(
      (
        await owner.json(`/api/orgs/${orgId}/members/${memberId}`, {
          method: "PATCH",
          headers: json,
          body: JSON.stringify({ dailyCap: 100, monthlyCap: 1000 }),
        })
      ).status,
    ).toBe(200);

    expect(
      (await member.json("/api/account/active", { method: "PUT", headers: json, body: JSON.stringify({ accountId: orgId }) })).status,
    ).toBe(200);
    for (let i = 0; i < 2; i++) {
      const chat = await member.json<{ cost: number }>("/api/ai/chat", {
        method: "POST",
        headers: json,
        body: JSON.stringify({ messages: [{ role: "user", content: `hello ${i}` }] }),
      });
      expect(chat.status).toBe(200);
    }
    const spend = await owner.json<{ byMember: { userId: string; credits: number; calls: number }[] }>(`/api/orgs/${orgId}/usage`);
    expect(spend.body.byMember.find((m) => m.userId === memberId)).toMatchObject({ credits: 30, calls: 2 });

    // A day on the team pages: what the header and the Organisations, Alerts, API keys and Credits pages read.
    const pageView = [
      "/api/orgs",
      "/api/account/active",
      `/api/orgs/${orgId}`,
      `/api/orgs/${orgId}/members`,
      `/api/orgs/${orgId}/invites`,
      `/api/orgs/${orgId}/usage`,
      "/api/usage?group_by=day&stack=model",
      "/api/alerts",
      "/api/keys",
      "/api/webhook-endpoints",
      "/api/ai/usage",
    ];
    const refused: string[] = [];
    for (let view = 0; view < 40; view++) {
      for (const p of pageView) {
        const res = await owner.fetch(p);
        await res.arrayBuffer();
        if (res.status === 429) refused.push(p);
        else expect(res.status, p).toBe(200);
      }
    }
    expect(refused).toEqual([]);
    // SPEC §8's api allowance is untouched by all of it: the first user-status read of the hour.
    const status = await owner.fetch("/api/user/status");
    expect(status.status).toBe(200);
    expect(status.headers.get("x-ratelimit-limit")).toBe("100");
    expect(status.headers.get("x-ratelimit-remaining")).toBe("99");
  }, 240_000);
});
