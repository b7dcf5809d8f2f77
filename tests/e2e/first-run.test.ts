import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./client";
import { removeDir, startServer, type RunningServer } from "./server";

/**
 * What a new user meets first, on the production build: the unedited .env.example (copied to
 * .env.local as the README says) and no NEXTAUTH_URL, in development mode.
 */
function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) out[m[1]] = m[2];
  }
  return out;
}

let server: RunningServer;

beforeAll(async () => {
  // Every line of the example as it ships (empty values included), but the data directory: the
  // helper gives each server its own (an empty DATA_DIR would mean .data inside the build output).
  const { DATA_DIR: _unused, ...example } = parseEnvFile(readFileSync(path.join(process.cwd(), ".env.example"), "utf8"));
  server = await startServer({ ...example, APP_ENV: "development", NEXTAUTH_URL: undefined }, { dataDirPrefix: "svc-first-run-" });
});

afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
});

describe("content security policy", () => {
  it("every HTML page carries a nonce-based CSP (frame-ancestors 'none', no unsafe-eval) and its scripts carry the nonce", async () => {
    const client = new Client(server.baseUrl);
    await client.signIn("csp@example.com");
    for (const page of ["/", "/signin", "/pricing", "/dev/mailbox", "/simulator/checkout/unknown", "/dashboard", "/no-such-page"]) {
      const res = await client.fetch(page);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp, page).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
      expect(csp, page).toContain("frame-ancestors 'none'");
      expect(csp, page).not.toContain("unsafe-eval");
      const nonce = /'nonce-([^']+)'/.exec(csp)![1];
      const html = await res.text();
      const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
      expect(scripts.length, page).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag, page).toContain(`nonce="${nonce}"`);
    }
    // API answers are JSON, not pages: no CSP needed there.
    expect((await client.fetch("/api/health")).headers.get("content-security-policy")).toBeNull();
  });
});

describe("first run", () => {
  it("the unedited .env.example starts the server (empty values mean unset)", async () => {
    const res = await fetch(`${server.baseUrl}/api/health`);
    expect(res.status).toBe(200);
  });

  it("dev sign-in redirects to the origin the browser used, not http://localhost:3000", async () => {
    const client = new Client(server.baseUrl);
    const { body } = await client.json<{ csrfToken: string }>("/api/auth/csrf");
    const res = await client.fetch("/api/auth/callback/dev", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken: body.csrfToken, email: "first-run@example.com", callbackUrl: "/dashboard" }).toString(),
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`${server.baseUrl}/dashboard`);
    expect(client.cookies.has("next-auth.session-token")).toBe(true);
  });

  it("the pages a new user reaches answer: pricing (where a cancelled checkout returns), favicon, styled simulator checkout, mailbox with a way back", async () => {
    const pricing = await fetch(`${server.baseUrl}/pricing`);
    expect(pricing.status).toBe(200);
    const html = await pricing.text();
    expect(html).toContain("/api/payments/create-checkout?tier=pro&amp;billing=monthly");

    const favicon = await fetch(`${server.baseUrl}/favicon.ico`);
    expect(favicon.status).toBe(200);
    expect(favicon.headers.get("content-type")).toMatch(/icon/);

    // Registration-first checkout from the pricing page: 302 to the simulator, whose Cancel returns to /pricing.
    const checkout = await fetch(`${server.baseUrl}/api/payments/create-checkout?tier=pro&billing=monthly`, { redirect: "manual" });
    expect(checkout.status).toBe(302);
    const page = await fetch(checkout.headers.get("location")!);
    expect(page.status).toBe(200);
    const checkoutHtml = await page.text();
    expect(checkoutHtml).toMatch(/class="btn-primary"[^>]*>Complete purchase/);
    expect(checkoutHtml).toMatch(/href="[^"]*\/pricing"[^>]*>Cancel/);

    const mailbox = await fetch(`${server.baseUrl}/dev/mailbox`);
    expect(mailbox.status).toBe(200);
    expect(await mailbox.text()).toContain('href="/dashboard"');
  });

  it("a signed-in visitor buys from the pricing page with their own email, and the plan lands on their account", async () => {
    const client = new Client(server.baseUrl);
    await client.signIn("pricing-buyer@example.com");
    const html = await (await client.fetch("/pricing")).text();
    expect(html).toMatch(/Signed in as (<!-- -->)?pricing-buyer@example\.com/);
    const link = /href="(\/api\/payments\/create-checkout\?tier=pro&amp;billing=monthly[^"]*)"/.exec(html)?.[1].replaceAll("&amp;", "&");
    expect(link).toContain("email=pricing-buyer%40example.com");

    const checkout = await fetch(`${server.baseUrl}${link}`, { redirect: "manual" });
    expect(checkout.status).toBe(302);
    const location = checkout.headers.get("location")!;
    const page = await (await fetch(location)).text();
    expect(page).toContain("Account: <strong>pricing-buyer@example.com</strong>");

    const done = await fetch(`${server.baseUrl}/api/simulator/checkout`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ id: location.split("/").pop()! }).toString(),
      redirect: "manual",
    });
    expect(done.status).toBe(303);
    const usage = await client.json<{ tier: string }>("/api/ai/usage");
    expect(usage.body.tier).toBe("pro");

    // Subscribed now: the pricing page offers the dashboard's plan change, never a second checkout.
    const after = await (await client.fetch("/pricing")).text();
    expect(after).not.toContain("/api/payments/create-checkout");
    expect(after).toMatch(/href="\/dashboard\/billing"[^>]*>Your plan/);
  });
});
