import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { healthUnderHostileBodies, keyFor } from "../helpers/hostile-bodies";
import { Client } from "./client";
import { removeDir, startServer, type RunningServer } from "./server";

/**
 * The third security round through the production server: no free denial of service (health stays
 * quick while one free account sends the largest bodies the API reads), and sessions that end when
 * their user signs out, here or everywhere.
 */
let server: RunningServer;

beforeAll(async () => {
  // gpt-4.1 offered: the text bound is its 1M-token context's, the largest a body can need.
  server = await startServer({ AI_ALLOWED_MODELS: "gpt-4o-mini,gpt-4.1" }, { dataDirPrefix: "svc-sec3-" });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
});

const signOut = async (client: Client) => {
  const { body } = await client.json<{ csrfToken: string }>("/api/auth/csrf");
  return client.fetch("/api/auth/signout", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken: body.csrfToken, json: "true" }).toString(),
  });
};

describe("security, round three (production server)", () => {
  it("keeps /api/health quick while 8 of the largest bodies arrive from one free account, each refused at no charge", async () => {
    const secret = await keyFor(server.baseUrl, "hostile@example.com");
    const load = await healthUnderHostileBodies(server.baseUrl, secret, 8, "gpt-4.1");
    console.log(
      `health under 8 hostile bodies: p50 ${load.p50.toFixed(1)} ms, p99 ${load.p99.toFixed(1)} ms, max ${load.max.toFixed(1)} ms over ${load.latencies.length} requests; text bound ${load.textLimit} bytes`,
    );
    // Each body refused: the largest as text beyond the bound (413), those under it as too long for the model (400).
    expect(load.statuses.every((s) => s === 413 || s === 400)).toBe(true);
    expect(load.statuses.filter((s) => s === 413)).toHaveLength(4);
    // The figure is in docs/BENCHMARKS.md (npm run bench:health, under 200 ms); this bound has a wide margin for a busy CI.
    expect(load.p99).toBeLessThan(1_000);
    // Nothing was charged for any of them.
    const owner = new Client(server.baseUrl);
    await owner.signIn("hostile@example.com");
    const usage = await owner.json<{ used: number }>("/api/ai/usage");
    expect(usage.body.used).toBe(0);
  }, 180_000);

  it("signing out ends the session on the server: a copy of its cookie is refused, another session goes on", async () => {
    const browser = new Client(server.baseUrl);
    await browser.signIn("leaves@example.com");
    const phone = new Client(server.baseUrl);
    await phone.signIn("leaves@example.com");
    const copy = new Client(server.baseUrl);
    for (const [k, v] of browser.cookies) copy.cookies.set(k, v);
    expect((await copy.fetch("/api/user/status")).status).toBe(200);
    expect((await signOut(browser)).status).toBe(200);
    expect((await copy.fetch("/api/user/status")).status).toBe(401);
    // next-auth's own session endpoint answers no session, and clears the copy's cookie.
    const session = await copy.fetch("/api/auth/session");
    expect(await session.json()).toEqual({});
    expect(copy.cookies.has("next-auth.session-token")).toBe(false);
    expect((await phone.fetch("/api/user/status")).status).toBe(200);
  });

  it("signs out everywhere from the account page's endpoint: every session of the user ends", async () => {
    const sessions = [new Client(server.baseUrl), new Client(server.baseUrl)];
    for (const s of sessions) await s.signIn("everywhere@example.com");
    const res = await sessions[0].fetch("/api/user/sign-out-everywhere", {
      method: "POST",
      headers: { origin: server.baseUrl, "sec-fetch-site": "same-origin" },
    });
    expect(res.status).toBe(200);
    for (const s of sessions) expect((await s.fetch("/api/user/status")).status).toBe(401);
    const again = new Client(server.baseUrl);
    await new Promise((r) => setTimeout(r, 10));
    await again.signIn("everywhere@example.com");
    expect((await again.fetch("/api/user/status")).status).toBe(200);
    const page = await again.fetch("/dashboard/account");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Account");
  });
});
