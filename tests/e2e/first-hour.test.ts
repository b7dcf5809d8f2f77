import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startResendStub, type ResendStub } from "@/tests/helpers/resend-stub";
import { Client } from "./client";
import { removeDir, startServer, type RunningServer } from "./server";

/**
 * DEPLOY.md's first hour, walked as a newcomer walks it, through `npm start` itself (the project's
 * scripts/standalone-start.mjs, run from a project folder of its own) and the production server:
 * an unsupported Node is refused in one line; production without a payment provider refuses to
 * start unless payments are switched off, and then answers 503 with a code (never a 500); the
 * embedded database in production never uses development's .data; a sign-in mail that cannot go
 * out tells the person to contact the operator, the operator gets one log line naming the setting,
 * and the console's overview counts it. (db:migrate creating its database is in the deploy suite:
 * it needs PostgreSQL.)
 */
const ROOT = process.cwd();
const DIST_DIR = ".next";
const ADMIN_TOKEN = "first-hour-admin-token-0123456789abcdef";
const BASE_ENV = {
  NODE_ENV: "production",
  NEXTAUTH_SECRET: "first-hour-nextauth-secret-0123456789",
  CRON_SECRET: "first-hour-cron-secret",
  ALLOW_EMBEDDED_DATABASE: "true",
  AI_OFFLINE: "true",
  AUTH_DEV_LOGIN: "true",
  AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION: "true",
  RAG_INDEX_ON_START: "false",
  PGLITE_DATA_DIR: undefined,
};

/** A project folder of its own (the build linked in), so that `npm start` creates its data there, not in this checkout. */
function projectFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "svc-first-hour-"));
  symlinkSync(path.join(ROOT, DIST_DIR), path.join(dir, DIST_DIR));
  return dir;
}

const START_SCRIPT = path.join(ROOT, "scripts", "standalone-start.mjs");

/** `npm start` run to its end (a start that is refused), with only the given environment. */
function startRefused(cwd: string, env: Record<string, string | undefined>, nodeArgs: string[] = []) {
  const result = spawnSync(process.execPath, [...nodeArgs, START_SCRIPT], {
    cwd,
    env: Object.fromEntries(Object.entries({ PATH: process.env.PATH, HOME: process.env.HOME, ...env }).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, output: `${result.stdout ?? ""}${result.stderr ?? ""}` };
}

describe("an unsupported Node.js", () => {
  it("is refused at start and at install in one line that says what is needed", () => {
    const fake = path.join(mkdtempSync(path.join(tmpdir(), "svc-node20-")), "node20.cjs");
    writeFileSync(fake, 'Object.defineProperty(process.versions, "node", { value: "20.19.0" });\nObject.defineProperty(process, "version", { value: "v20.19.0" });\n');
    const project = projectFolder();
    try {
      const refused = startRefused(project, BASE_ENV, ["--require", fake]);
      expect(refused.status).toBe(1);
      const lines = refused.output.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^This app needs Node\.js 22\.13 or newer, and this is Node\.js 20\.19\.0: install Node\.js 24 LTS/);
      // npm install: engine-strict (.npmrc) makes the engines field a refusal, not 60 warnings.
      expect(readFileSync(path.join(ROOT, ".npmrc"), "utf8")).toMatch(/^engine-strict=true$/m);
      const npm = spawnSync("npm", ["install", "--dry-run", "--ignore-scripts", "--no-audit", "--no-fund"], {
        cwd: ROOT,
        env: { ...process.env, NODE_OPTIONS: `--require ${fake}` },
        encoding: "utf8",
        timeout: 120_000,
      });
      expect(npm.status).not.toBe(0);
      expect(`${npm.stdout}${npm.stderr}`).toMatch(/EBADENGINE|Unsupported engine/);
    } finally {
      removeDir(project);
      removeDir(path.dirname(fake));
    }
  }, 180_000);
});

describe("production without a payment provider (npm start, embedded database)", () => {
  it("refuses to start, naming the settings, until payments are switched off or a provider is set", () => {
    const project = projectFolder();
    try {
      const refused = startRefused(project, { ...BASE_ENV, PORT: "0" });
      expect(refused.status).toBe(1);
      expect(refused.output).toContain("LEMONSQUEEZY_API_KEY: required in production to take payments");
      expect(refused.output).toContain("PAYMENTS_ENABLED=false");
      expect(refused.output).not.toMatch(/Ready in/);
    } finally {
      removeDir(project);
    }
  }, 90_000);

  it("refuses development's .data directory, unless asked to use it", () => {
    const project = projectFolder();
    try {
      const refused = startRefused(project, { ...BASE_ENV, PAYMENTS_ENABLED: "false", DATA_DIR: ".data" });
      expect(refused.status).toBe(1);
      expect(refused.output.trim().split("\n")).toHaveLength(1);
      expect(refused.output).toContain("is the development data directory");
      expect(refused.output).toContain("ALLOW_DEV_DATA_DIR=true");
      expect(existsSync(path.join(project, ".data"))).toBe(false);
    } finally {
      removeDir(project);
    }
  });

  describe("with PAYMENTS_ENABLED=false", () => {
    let project: string;
    let server: RunningServer;
    beforeAll(async () => {
      project = projectFolder();
      server = await startServer(
        { ...BASE_ENV, PAYMENTS_ENABLED: "false", PAYMENT_SIMULATOR_ENABLED: undefined, DATA_DIR: undefined, ADMIN_API_TOKEN: ADMIN_TOKEN, LOG_LEVEL: "info" },
        {
          dataDirPrefix: "svc-first-hour-unused-",
          launch: (env) => {
            const { DATA_DIR: _unused, ...rest } = env;
            return { command: "sh", args: ["-c", `cd "${project}" && exec "${process.execPath}" "${START_SCRIPT}"`], env: rest as NodeJS.ProcessEnv };
          },
        },
      );
    }, 120_000);
    afterAll(async () => {
      await server?.stop();
      if (server) removeDir(server.dataDir);
      if (project) removeDir(project);
    });

    it("keeps its embedded data in .data-production, and says where", () => {
      expect(existsSync(path.join(project, ".data-production", "db"))).toBe(true);
      expect(existsSync(path.join(project, ".data"))).toBe(false);
      expect(readFileSync(server.logFile, "utf8")).toContain(`"dataDir":"${path.join(project, ".data-production", "db")}"`);
    });

    it("answers every payment route 503 payments_disabled (never a 500) and shows no purchase button", async () => {
      const client = new Client(server.baseUrl);
      await client.signIn("no-payments@example.com");
      const routes: Array<[string, RequestInit & { headers?: Record<string, string> }]> = [
        ["/api/payments/create-checkout?tier=pro&billing=monthly", {}],
        ["/api/payments/create-checkout", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ variantId: "local-basic-monthly" }) }],
        ["/api/credits/checkout", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ packageIndex: 0 }) }],
        ["/api/payments/customer-portal", { method: "POST" }],
      ];
      for (const [pathname, init] of routes) {
        const res = await client.json<{ error: string; code: string }>(pathname, init);
        expect(res.status, pathname).not.toBe(500);
        if (res.status === 503) expect(res.body, pathname).toEqual({ error: expect.stringContaining("Payments are switched off"), code: "payments_disabled" });
      }
      const checkout = await client.json("/api/payments/create-checkout?tier=pro&billing=monthly");
      expect(checkout.status).toBe(503);
      const config = await client.json<{ features: { paymentsEnabled: boolean } }>("/api/config/public");
      expect(config.body.features.paymentsEnabled).toBe(false);
      const pricing = await (await client.fetch("/pricing")).text();
      expect(pricing).toContain("Pricing");
      expect(pricing).not.toContain("Buy monthly");
      expect(pricing).not.toContain("/api/payments/create-checkout");
    });
  });
});

describe("a sign-in mail that cannot go out (production, Resend refusing the sender)", () => {
  let resend: ResendStub;
  let server: RunningServer;
  beforeAll(async () => {
    resend = await startResendStub();
    server = await startServer({ ...BASE_ENV, ...resend.env, EMAIL_FROM: "App <no-reply@unverified.example>", ADMIN_API_TOKEN: ADMIN_TOKEN, LOG_LEVEL: "info" });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
    await resend?.close();
  });

  it("tells the person to contact the operator, logs the cause once naming the setting, and shows on the console's overview", async () => {
    resend.failNext(403, 1, { name: "validation_error", message: "The unverified.example domain is not verified. Please, add and verify your domain on https://resend.com/domains" });
    const res = await fetch(`${server.baseUrl}/api/auth/email-link`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "newcomer@example.com" }).toString(),
    });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: string; code: string };
    expect(body.error).toBe("This site cannot send email right now, so sign-in links cannot be delivered; please contact the site's operator");
    expect(body.error).not.toMatch(/try again in a minute/);

    const lines = readFileSync(server.logFile, "utf8").split("\n").filter((l) => l.includes("email not sent") || l.includes("sign-in link not sent"));
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]) as { level: string; msg: string; setting: string };
    expect(line.level).toBe("error");
    expect(line.setting).toBe("EMAIL_FROM");
    expect(line.msg).toMatch(/set EMAIL_FROM to an address on a domain verified in your Resend account/);

    const summary = await fetch(`${server.baseUrl}/api/admin/metrics/summary`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(summary.status).toBe(200);
    const emails = ((await summary.json()) as { emails: { failedLast24h: number; signInFailedLast24h: number; lastFailure: { type: string; error: string } | null } }).emails;
    expect(emails).toMatchObject({ failedLast24h: 1, signInFailedLast24h: 1, lastFailure: { type: "sign_in", error: expect.stringContaining("EMAIL_FROM") } });
  });

  it("a passing failure (Resend's own trouble) says to try again later, then to contact the operator if it keeps failing", async () => {
    resend.failNext(500, 1);
    const res = await fetch(`${server.baseUrl}/api/auth/email-link`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "second@example.com" }).toString(),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("300");
    expect(((await res.json()) as { error: string }).error).toMatch(/try again in a few minutes, and if it keeps failing, contact the site's operator/);
    // And once Resend is back, the link goes out.
    const ok = await fetch(`${server.baseUrl}/api/auth/email-link`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "second@example.com" }).toString(),
    });
    expect(ok.status).toBe(200);
    expect(resend.sent.at(-1)?.body.to).toEqual(["second@example.com"]);
  });
});
