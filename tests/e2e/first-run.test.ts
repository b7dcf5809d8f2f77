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

  it("a bought pack is a receipt; the simulator's receipt page refunds it, and the refund takes its credits back", async () => {
    const client = new Client(server.baseUrl);
    await client.signIn("refund-buyer@example.com");
    const post = (path: string, json: unknown) =>
      client.json(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(json) });
    await post("/api/payments/create-checkout", { variantId: "local-pro-monthly" }).then(async ({ body }) =>
      post("/api/simulator/checkout", { id: String(body.checkoutUrl).split("/").pop() }),
    );
    const pack = await post("/api/credits/checkout", { variantId: "local-bonus-pro-2000" });
    expect((await post("/api/simulator/checkout", { id: String(pack.body.checkoutUrl).split("/").pop() })).status).toBe(200);
    expect((await client.json<{ bonusCredits: number }>("/api/ai/usage")).body.bonusCredits).toBe(2000);

    const receipts = await client.json<{ payments: Array<{ kind: string; status: string; amount: number; receiptUrl: string }> }>(
      "/api/payments/receipts",
    );
    expect(receipts.status).toBe(200);
    expect(receipts.body.payments.map((p) => [p.kind, p.status, p.amount])).toEqual([
      ["pack", "paid", 1499],
      ["plan", "paid", 2999],
    ]);
    const page = await (await fetch(`${server.baseUrl}${receipts.body.payments[0].receiptUrl}`)).text();
    expect(page).toContain("2,000 bonus credits");
    const token = /name="token" value="([^"]+)"/.exec(page)?.[1];
    expect(token).toBeTruthy();
    const refunded = await fetch(`${server.baseUrl}/api/simulator/refund`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: token!.replaceAll("&amp;", "&"), amount: "full" }).toString(),
      redirect: "manual",
    });
    expect(refunded.status).toBe(303);
    expect(refunded.headers.get("location")).toContain("message=Refunded%20in%20full");
    const usage = await client.json<{ bonusCredits: number; remaining: number; debt?: number }>("/api/ai/usage");
    expect(usage.body).toMatchObject({ bonusCredits: 0, remaining: 5000 });
    expect(usage.body.debt).toBeUndefined();
    const after = await client.json<{ payments: Array<{ status: string; creditsTakenBack: number }> }>("/api/payments/receipts");
    expect(after.body.payments[0]).toMatchObject({ status: "refunded", creditsTakenBack: 2000 });
  });

  it("README's /v1 walk on the embedded default: embeddings, one model name, a refused call leaves no ledger rows, offline costs nothing upstream", async () => {
    const client = new Client(server.baseUrl);
    await client.signIn("v1-walk@example.com");
    const created = await client.json<{ secret: string }>("/api/keys", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "walk" }),
    });
    expect(created.status).toBe(200);
    const v1 = (pathname: string, body: unknown) =>
      client.json(pathname, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${created.body.secret}` },
        body: JSON.stringify(body),
      });
    const history = async () =>
      (
        await client.json<{ transactions: { type: string; operation: string; metadata: Record<string, unknown> }[] }>(
          "/api/credits/history",
        )
      ).body.transactions;

    const first = await v1("/v1/embeddings", { model: "text-embedding-3-small", input: ["hello world", "second"] });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const again = await v1("/v1/embeddings", { model: "text-embedding-3-small", input: ["hello world", "second"] });
    expect(again.body.data[0].embedding).toEqual(first.body.data[0].embedding);
    expect(first.body.model).toBe("text-embedding-3-small");

    const json = await v1("/v1/chat/completions", { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    const streamed = await client.fetch("/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${created.body.secret}` },
      body: JSON.stringify({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "hi" }] }),
    });
    const firstChunk = JSON.parse(/data: (\{.*\})/.exec(await streamed.text())![1]) as { model: string };
    expect(json.body.model).toBe("gpt-4o-mini");
    expect(firstChunk.model).toBe(json.body.model);

    // Refused before any provider call: nothing in the history, not even a refund.
    const rows = (await history()).length;
    for (const [pathname, body] of [
      ["/v1/images/generations", { model: "gpt-image-1", prompt: "   " }],
      ["/v1/embeddings", { model: "text-embedding-3-small", input: "x", dimensions: 5000 }],
      ["/v1/chat/completions", { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], max_completion_tokens: 10_000_000 }],
    ] as const) {
      expect((await v1(pathname, body)).status, pathname).toBe(400);
    }
    const after = await history();
    expect(after).toHaveLength(rows);
    expect(after.filter((t) => t.type === "refund")).toEqual([]);
    // The offline provider bills nobody.
    const usage = after.filter((t) => t.type === "usage");
    expect(usage.length).toBeGreaterThanOrEqual(4);
    for (const t of usage) expect(t.metadata.costMicros, t.operation).toBe(0);
  });

  it("the local mailbox opens a mailed sign-in link in the top window, and wraps the plain-text URL", async () => {
    const asked = await fetch(`${server.baseUrl}/api/auth/email-link`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "mailbox-walk@example.com" }).toString(),
    });
    expect(asked.status).toBe(200);
    const html = await (await fetch(`${server.baseUrl}/dev/mailbox`)).text();
    expect(html).toContain('sandbox="allow-top-navigation-by-user-activation allow-popups allow-popups-to-escape-sandbox"');
    expect(html).toContain("&lt;base target=&quot;_top&quot;&gt;");
    expect(html).toContain("overflow-wrap:anywhere");
  });
});
