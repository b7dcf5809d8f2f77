import { spawn } from "node:child_process";
import path from "node:path";
import { svixHeaders } from "@/tests/helpers/svix";
import { describe, expect, inject, it } from "vitest";
import { Client } from "./client";
import { E2E_IDENTITY_SECRET, freePort, standaloneDir } from "./server";

const baseUrl = inject("baseUrl");
const email = `e2e-${Date.now()}@example.com`;

describe("the built server over HTTP (next start, embedded database)", () => {
  it("listens on the PORT it was given", () => {
    expect(new URL(baseUrl).port).toBe(String(inject("serverPort")));
  });

  it("GET /api/health: 200 healthy, never cached, with a request id and security headers", async () => {
    const c = new Client(baseUrl);
    const res = await c.json("/api/health");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "healthy", environment: "production", checks: { database: "connected", memory: "ok" } });
    expect(res.headers.get("cache-control")).toBe("no-cache, no-store, must-revalidate");
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-powered-by")).toBeNull();
    const given = await c.fetch("/api/health", { headers: { "x-request-id": "e2e-req-1" } });
    expect(given.headers.get("x-request-id")).toBe("e2e-req-1");
  });

  it("POST /api/health: 405 with Allow", async () => {
    const res = await new Client(baseUrl).json("/api/health", { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET");
    expect(res.body).toEqual({ error: "Method POST not allowed; use GET", code: "method_not_allowed" });
  });

  it("GET /api/config/public (edge): 200, public for an hour", async () => {
    const res = await new Client(baseUrl).json("/api/config/public");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=3600, s-maxage=3600");
    expect(res.body).toMatchObject({ model: "credit_based", currency: "USD", features: { freeTierEnabled: true } });
    expect(res.body.tiers).toHaveLength(4);
  });

  it("GET /api/pricing/config: 200 with the full catalog", async () => {
    const res = await new Client(baseUrl).json("/api/pricing/config");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=60, s-maxage=60, stale-while-revalidate=60");
    expect(res.body.tiers.map((t: { key: string }) => t.key)).toEqual(["free", "basic", "pro", "enterprise"]);
  });

  it("GET /api/user/status without a session: 401 { error }", async () => {
    const res = await new Client(baseUrl).json("/api/user/status");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Authentication required", code: "unauthorized" });
  });

  it("dev sign-in sets a session; /api/auth/session exposes user.id and user.email; status answers", async () => {
    const c = new Client(baseUrl);
    const signIn = await c.signIn(email);
    expect(signIn.status).toBe(200);
    expect(c.cookies.has("next-auth.session-token")).toBe(true);
    const session = await c.json("/api/auth/session");
    expect(session.status).toBe(200);
    expect(session.body.user).toMatchObject({ email });
    expect(session.body.user.id).toMatch(/^[0-9a-f-]{36}$/);

    const status = await c.json("/api/user/status");
    expect(status.status).toBe(200);
    expect(status.body).toEqual({
      status: "free",
      tier: "free",
      billingPeriod: "monthly",
      isTrial: false,
      needsAction: false,
      isLocked: false,
    });
    expect(status.headers.get("cache-control")).toBe("private, max-age=300");
    expect(status.headers.get("x-ratelimit-limit")).toBe("100");
    expect(Number(status.headers.get("x-ratelimit-remaining"))).toBe(99);
    expect(Number(status.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);

    // The same token works as a bearer token for API clients.
    const bearer = await new Client(baseUrl).json("/api/user/status", {
      headers: { authorization: `Bearer ${c.cookies.get("next-auth.session-token")}` },
    });
    expect(bearer.status).toBe(200);
    expect(Number(bearer.headers.get("x-ratelimit-remaining"))).toBe(98);
  });

  it("signing in twice is one user", async () => {
    const a = new Client(baseUrl);
    const b = new Client(baseUrl);
    await a.signIn(email);
    await b.signIn(email.toUpperCase());
    const [sa, sb] = await Promise.all([a.json("/api/auth/session"), b.json("/api/auth/session")]);
    expect(sa.body.user.id).toBe(sb.body.user.id);
  });

  it("a refused sign-in (not an email) sets no session", async () => {
    const c = new Client(baseUrl);
    const res = await c.signIn("not-an-email");
    expect(res.status).toBe(401);
    expect(c.cookies.has("next-auth.session-token")).toBe(false);
    expect((await c.json("/api/auth/session")).body).toEqual({});
  });

  it("a dashboard request is redirected to /signin, also when it carries x-middleware-subrequest", async () => {
    const c = new Client(baseUrl);
    for (const value of [
      undefined,
      "middleware",
      "src/middleware",
      "middleware:middleware:middleware:middleware:middleware",
      "pages/_middleware",
    ]) {
      const res = await c.fetch("/dashboard", { headers: value ? { "x-middleware-subrequest": value } : {} });
      expect(res.status).toBe(307);
      expect(new URL(res.headers.get("location") as string, baseUrl).pathname).toBe("/signin");
    }
    const signedIn = new Client(baseUrl);
    await signedIn.signIn(email);
    const res = await signedIn.fetch("/dashboard");
    expect(res.status).not.toBe(307);
  });

  it("the identity webhook creates a user that the same email then signs in as; user.deleted removes them", async () => {
    const deliver = (id: string, event: unknown, secret = E2E_IDENTITY_SECRET) => {
      const payload = JSON.stringify(event);
      const at = new Date();
      return fetch(`${baseUrl}/api/webhooks/identity`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...svixHeaders(secret, payload, { id, at }),
        },
        body: payload,
      });
    };
    const data = { id: "user_e2e", email_addresses: [{ id: "e1", email_address: "hook-e2e@example.com" }], primary_email_address_id: "e1" };
    const created = await deliver("msg_e2e_1", { type: "user.created", data });
    expect(created.status).toBe(200);
    expect(await created.json()).toMatchObject({ duplicate: false, result: "user created" });
    expect(await (await deliver("msg_e2e_1", { type: "user.created", data })).json()).toMatchObject({ duplicate: true });

    const c = new Client(baseUrl);
    await c.signIn("hook-e2e@example.com");
    expect((await c.json("/api/user/status")).status).toBe(200);

    const wrong = await deliver(
      "msg_e2e_2",
      { type: "user.deleted", data: { id: "user_e2e" } },
      "whsec_d3Jvbmctc2VjcmV0LXdyb25nLXNlY3JldC0wMTI=",
    );
    expect(wrong.status).toBe(401);
    const missing = await fetch(`${baseUrl}/api/webhooks/identity`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(400);

    expect((await deliver("msg_e2e_3", { type: "user.deleted", data: { id: "user_e2e" } })).status).toBe(200);
    // The session now names a user that no longer exists: the same user was signed in.
    expect((await c.json("/api/user/status")).status).toBe(401);
  });
});

/** Runs a Node script as a server would start; its exit code (null if still running after 60 s, then killed) and everything it printed. */
async function runUntilExit(
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string },
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve(null);
    }, 60_000);
    child.once("exit", (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  return { code, output };
}

describe("start-up", () => {
  it("an invalid environment stops the server with the readable list of problems (exit 1)", async () => {
    const port = await freePort();
    const { code, output } = await runUntilExit([path.join("node_modules", "next", "dist", "bin", "next"), "start", "-H", "127.0.0.1"], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_ENV: "production",
        PORT: String(port),
        DATABASE_URL: "mysql://root:secret-password@db/app",
        RATE_LIMIT_ENABLED: "false",
        NEXT_TELEMETRY_DISABLED: "1",
      } as NodeJS.ProcessEnv,
    });
    expect(code).toBe(1);
    expect(output).toContain("Invalid configuration:");
    expect(output).toMatch(/- DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL/);
    expect(output).toContain("- NEXTAUTH_SECRET: required in production");
    expect(output).toContain("- CRON_SECRET: required in production");
    expect(output).toContain("- RATE_LIMIT_ENABLED: cannot be false in production");
    expect(output).not.toContain("secret-password");
  });

  it("the standalone server lists every problem of several at once (JSON settings, production rules, AI, sign-in) and exits before saying Ready", async () => {
    const port = await freePort();
    const { code, output } = await runUntilExit([path.join(standaloneDir(), "server.js")], {
      cwd: standaloneDir(),
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_ENV: "production",
        PORT: String(port),
        HOSTNAME: "127.0.0.1",
        NEXTAUTH_SECRET: "x".repeat(40),
        CRON_SECRET: "y".repeat(40),
        ALLOW_EMBEDDED_DATABASE: "true",
        PRICING_CONFIG: "{bad",
        ADMIN_API_TOKEN: "too-short",
        RATE_LIMIT_ENABLED: "false",
        AUTH_DEV_LOGIN: "true",
        LEMONSQUEEZY_API_KEY: "ls_test",
      } as NodeJS.ProcessEnv,
    });
    expect(code, output).toBe(1);
    expect(output).not.toMatch(/Ready in/);
    const list = output.slice(output.indexOf("Invalid configuration:"));
    for (const expected of [
      "- PRICING_CONFIG: is not valid JSON",
      "- ADMIN_API_TOKEN: must be at least 32 characters",
      "- RATE_LIMIT_ENABLED: cannot be false in production",
      "- LEMONSQUEEZY_STORE_ID: required when LEMONSQUEEZY_API_KEY is set",
      "- PAYMENT_WEBHOOK_SECRET: required when LEMONSQUEEZY_API_KEY is set",
      "- AUTH_DEV_LOGIN: true lets anyone sign in as any email address",
      "- Sign-in: no sign-in method is configured for production",
      "- AI provider: none is configured",
    ]) {
      expect(list, expected).toContain(expected);
    }
    expect(output).not.toContain("too-short");
  });
});
