import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./client";
import { removeDir, startServer, type RunningServer } from "./server";

/**
 * The second security round through the production server, an attacker's and a shared browser's
 * view: metric labels that anonymous requests cannot grow, no open redirect after sign-in, no
 * cross-site writes with the session cookie, HSTS and Vary on every answer that needs them, a CSP
 * that bounds where forms lead, and sign-out clearing the browser's cache.
 */
const METRICS_TOKEN = "e2e-metrics-token-0123456789abcdef";
let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ METRICS_TOKEN }, { dataDirPrefix: "svc-sec2-" });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
});

async function metrics(): Promise<string> {
  const res = await fetch(`${server.baseUrl}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  return res.text();
}

describe("security, round two (production server)", () => {
  it("keeps metric labels to the declared routes whatever anonymous requests ask for", async () => {
    const ids = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? "x".repeat(2000) + i : randomBytes(16).toString("hex")));
    await Promise.all(ids.slice(0, 150).map((id) => fetch(`${server.baseUrl}/api/files/${id}`)));
    // The scrape itself is a request: scrape once so its own series exist before counting.
    await metrics();
    const before = (await metrics()).split("\n").filter((l) => l.startsWith("http_request")).length;
    await Promise.all(ids.slice(150).map((id) => fetch(`${server.baseUrl}/api/files/${id}`)));
    const text = await metrics();
    const after = text.split("\n").filter((l) => l.startsWith("http_request")).length;
    expect(after).toBe(before);
    expect(text).toContain('route="/api/files/{id}"');
    for (const id of ids) expect(text).not.toContain(id.slice(0, 32));
    expect(text.length).toBeLessThan(400_000);
  });

  it.each(["/%5Cevil.example/x", "/%09/evil.example/x", "//evil.example/x", "https://evil.example/x"])(
    "never sends the browser to another site after sign-in (callbackUrl=%s)",
    async (target) => {
      const html = await (await fetch(`${server.baseUrl}/signin?callbackUrl=${target}`)).text();
      // The sign-in form's destination, as the page hands it to the form (its flight data).
      const destinations = [...html.matchAll(/callbackUrl\\?":\\?"([^"\\]*)/g)].map((m) => m[1]);
      expect(destinations.length).toBeGreaterThan(0);
      expect(destinations.every((d) => d === "/dashboard")).toBe(true);
    },
  );

  it("refuses cross-site writes made with the session cookie, and JSON sent as anything but JSON", async () => {
    const user = new Client(server.baseUrl);
    await user.signIn("csrf-user@example.com");
    const set = (headers: Record<string, string>, value: boolean) =>
      user.fetch("/api/credits/preferences", { method: "PATCH", headers, body: JSON.stringify({ bonusCreditsAutoUse: value }) });
    expect(
      (await set({ "content-type": "application/json", origin: "https://evil.example", "sec-fetch-site": "cross-site" }, true)).status,
    ).toBe(403);
    expect((await set({ "content-type": "text/plain", origin: "https://evil.example", "sec-fetch-site": "cross-site" }, true)).status).toBe(
      403,
    );
    expect((await set({ "content-type": "text/plain", origin: server.baseUrl, "sec-fetch-site": "same-origin" }, true)).status).toBe(415);
    const prefs = await user.json<{ bonusCreditsAutoUse: boolean }>("/api/credits/preferences");
    expect(prefs.body.bonusCreditsAutoUse).toBe(false);
    // From the site itself, and from a program without a browser's headers, it works.
    expect((await set({ "content-type": "application/json", origin: server.baseUrl, "sec-fetch-site": "same-origin" }, true)).status).toBe(
      200,
    );
    expect((await set({ "content-type": "application/json" }, false)).status).toBe(200);
  });

  it("sends HSTS on every answer, API answers to requests with a body included", async () => {
    const user = new Client(server.baseUrl);
    await user.signIn("hsts@example.com");
    const chat = await user.fetch("/api/ai/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
    });
    expect(chat.status).toBe(200);
    for (const res of [
      chat,
      await fetch(`${server.baseUrl}/api/health`),
      await fetch(`${server.baseUrl}/signin`),
      await fetch(`${server.baseUrl}/api/files/x`, { method: "DELETE", body: "{}" }),
    ]) {
      expect(res.headers.get("strict-transport-security")).toBe("max-age=63072000; includeSubDomains");
    }
  });

  it("keeps private answers to the account that asked (Vary) and clears the browser's cache on sign-out", async () => {
    const user = new Client(server.baseUrl);
    await user.signIn("shared-browser@example.com");
    const status = await user.fetch("/api/user/status");
    expect(status.headers.get("cache-control")).toBe("private, max-age=300");
    expect(status.headers.get("vary")).toContain("Cookie, Authorization");
    const history = await user.fetch("/api/credits/history");
    expect(history.headers.get("vary")).toContain("Cookie, Authorization");
    const { body } = await user.json<{ csrfToken: string }>("/api/auth/csrf");
    const out = await user.fetch("/api/auth/signout", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken: body.csrfToken, json: "true" }).toString(),
    });
    expect(out.headers.get("clear-site-data")).toBe('"cache"');
  });

  it("bounds where a page's forms may lead", async () => {
    const csp = (await fetch(`${server.baseUrl}/signin`)).headers.get("content-security-policy") ?? "";
    expect(csp).toContain("form-action 'self'");
  });
});
