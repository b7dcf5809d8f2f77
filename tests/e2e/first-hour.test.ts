import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docSnippets } from "@/tests/helpers/doc-snippets";
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
    env: Object.fromEntries(
      Object.entries({ PATH: process.env.PATH, HOME: process.env.HOME, ...env }).filter(([, v]) => v !== undefined),
    ) as NodeJS.ProcessEnv,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, output: `${result.stdout ?? ""}${result.stderr ?? ""}` };
}

describe("an unsupported Node.js", () => {
  it("is refused at start and at install in one line that says what is needed", () => {
    const fake = path.join(mkdtempSync(path.join(tmpdir(), "svc-node20-")), "node20.cjs");
    writeFileSync(
      fake,
      'Object.defineProperty(process.versions, "node", { value: "20.19.0" });\nObject.defineProperty(process, "version", { value: "v20.19.0" });\n',
    );
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
      expect(refused.output).toContain("Payments: production needs a payment provider");
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
        {
          ...BASE_ENV,
          PAYMENTS_ENABLED: "false",
          PAYMENT_SIMULATOR_ENABLED: undefined,
          DATA_DIR: undefined,
          ADMIN_API_TOKEN: ADMIN_TOKEN,
          LOG_LEVEL: "info",
        },
        {
          dataDirPrefix: "svc-first-hour-unused-",
          launch: (env) => {
            const { DATA_DIR: _unused, ...rest } = env;
            return {
              command: "sh",
              args: ["-c", `cd "${project}" && exec "${process.execPath}" "${START_SCRIPT}"`],
              env: rest as NodeJS.ProcessEnv,
            };
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
        [
          "/api/payments/create-checkout",
          { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ variantId: "local-basic-monthly" }) },
        ],
        [
          "/api/credits/checkout",
          { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ packageIndex: 0 }) },
        ],
        ["/api/payments/customer-portal", { method: "POST" }],
      ];
      for (const [pathname, init] of routes) {
        const res = await client.json<{ error: string; code: string }>(pathname, init);
        expect(res.status, pathname).not.toBe(500);
        if (res.status === 503)
          expect(res.body, pathname).toEqual({ error: expect.stringContaining("Payments are switched off"), code: "payments_disabled" });
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

describe("DEPLOY.md's trial production start on one machine", () => {
  /** A clone of the project as the recipe expects: its build, scripts and settings files (linked). */
  function trialFolder(): string {
    const dir = projectFolder();
    for (const name of ["package.json", "tsconfig.json", "node_modules", "scripts", "lib"])
      symlinkSync(path.join(ROOT, name), path.join(dir, name));
    return dir;
  }
  const snippet = (title: string) => {
    const found = docSnippets(ROOT).find((s) => s.file === "docs/DEPLOY.md" && s.attrs.title === title);
    expect(found, `DEPLOY.md's ${title} block`).toBeTruthy();
    return found!.code;
  };
  const bare = { PATH: process.env.PATH, HOME: process.env.HOME };
  let project: string;
  let server: RunningServer;

  beforeAll(() => {
    project = trialFolder();
  });
  afterAll(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
    if (project) removeDir(project);
  });

  it("a bare production start says in one pass everything it needs, each with an example, and never says Ready", () => {
    const refused = startRefused(project, { NODE_ENV: "production", PORT: "0" });
    expect(refused.status).toBe(1);
    expect(refused.output).not.toMatch(/Ready in/);
    for (const needed of [
      "NEXTAUTH_SECRET",
      "CRON_SECRET",
      "DATABASE_URL",
      "ALLOW_EMBEDDED_DATABASE=true",
      "PAYMENTS_ENABLED=false",
      "AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION=true",
      "admin:sign-in-link",
      "AI_OFFLINE=true",
    ]) {
      expect(refused.output, needed).toContain(needed);
    }
  });

  it("the recipe's settings start the production server; the operator link command opens the console once", async () => {
    // The recipe as written, but its last line: the build exists, and the test starts the server itself.
    const recipe = snippet("trial-production").replace(/^npm run build && npm start$/m, "");
    const written = spawnSync("bash", ["-c", `set -euo pipefail\n${recipe}`], {
      cwd: project,
      encoding: "utf8",
      env: bare as unknown as NodeJS.ProcessEnv,
    });
    expect(written.status, written.stderr).toBe(0);
    expect(readFileSync(path.join(project, ".env.production.local"), "utf8")).toMatch(/^NEXTAUTH_SECRET=[0-9a-f]{64}$/m);

    server = await startServer(
      {},
      {
        dataDirPrefix: "svc-trial-unused-",
        // Only what a shell has, the port and the address: every setting comes from the recipe's file.
        launch: (env) => ({
          command: "sh",
          args: ["-c", `cd "${project}" && exec "${process.execPath}" "${START_SCRIPT}"`],
          env: {
            ...bare,
            PORT: env.PORT,
            HOSTNAME: env.HOSTNAME,
            NEXTAUTH_URL: env.NEXTAUTH_URL,
            RAG_INDEX_ON_START: "false",
          } as unknown as NodeJS.ProcessEnv,
        }),
      },
    );
    expect((await fetch(`${server.baseUrl}/api/health`)).status).toBe(200);
    expect(existsSync(path.join(project, ".data-production"))).toBe(true);
    const visitor = new Client(server.baseUrl);
    await visitor.signIn("visitor@example.com");
    expect((await visitor.json("/api/user/status")).status).toBe(200);
    // The development sign-in verifies nothing: not an operator, even with the operator's address.
    const pretender = new Client(server.baseUrl);
    await pretender.signIn("you@example.com");
    expect((await pretender.fetch("/admin")).status).toBe(404);

    const command = snippet("operator-link");
    const minted = spawnSync("bash", ["-c", command], {
      cwd: project,
      encoding: "utf8",
      timeout: 60_000,
      env: { ...bare, PORT: String(server.port), NEXTAUTH_URL: server.baseUrl } as unknown as NodeJS.ProcessEnv,
    });
    expect(minted.status, `${minted.stdout}${minted.stderr}`).toBe(0);
    const link = new URL(/(http:\/\/\S+\/signin\/email#\S+)/.exec(minted.stdout)![1]);
    const parts = new URLSearchParams(link.hash.slice(1));
    expect(parts.get("email")).toBe("you@example.com");
    expect(parts.get("callbackUrl")).toBe("/admin");

    const operator = new Client(server.baseUrl);
    expect((await operator.fetch(link.pathname)).status).toBe(200);
    const spend = async (client: Client) => {
      const { body } = await client.json<{ csrfToken: string }>("/api/auth/csrf");
      await client.fetch("/api/auth/callback/operator-link", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          csrfToken: body.csrfToken,
          email: parts.get("email")!,
          token: parts.get("token")!,
          json: "true",
        }).toString(),
      });
      return (await client.json<{ user?: { email?: string } }>("/api/auth/session")).body;
    };
    expect((await spend(operator)).user?.email).toBe("you@example.com");
    const consoleRes = await operator.fetch("/admin");
    expect(consoleRes.status).toBe(200);
    expect(await consoleRes.text()).toContain("Operator");
    // Once only: the same link signs nobody in again.
    expect((await spend(new Client(server.baseUrl))).user).toBeUndefined();
    // Only an operator's address gets a link.
    const refused = spawnSync("bash", ["-c", command.replace("you@example.com", "stranger@example.com")], {
      cwd: project,
      encoding: "utf8",
      timeout: 60_000,
      env: { ...bare, NEXTAUTH_URL: server.baseUrl } as unknown as NodeJS.ProcessEnv,
    });
    expect(refused.status).not.toBe(0);
    expect(`${refused.stdout}${refused.stderr}`).toContain("stranger@example.com is not in ADMIN_EMAILS");
  }, 180_000);
});

describe("a sign-in mail that cannot go out (production, Resend refusing the sender)", () => {
  let resend: ResendStub;
  let server: RunningServer;
  beforeAll(async () => {
    resend = await startResendStub();
    server = await startServer({
      ...BASE_ENV,
      ...resend.env,
      EMAIL_FROM: "App <no-reply@unverified.example>",
      ADMIN_API_TOKEN: ADMIN_TOKEN,
      LOG_LEVEL: "info",
    });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
    await resend?.close();
  });

  it("tells the person to contact the operator, logs the cause once naming the setting, and shows on the console's overview", async () => {
    resend.failNext(403, 1, {
      name: "validation_error",
      message: "The unverified.example domain is not verified. Please, add and verify your domain on https://resend.com/domains",
    });
    const res = await fetch(`${server.baseUrl}/api/auth/email-link`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "newcomer@example.com" }).toString(),
    });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: string; code: string };
    expect(body.error).toBe(
      "This site cannot send email right now, so sign-in links cannot be delivered; please contact the site's operator",
    );
    expect(body.error).not.toMatch(/try again in a minute/);

    const lines = readFileSync(server.logFile, "utf8")
      .split("\n")
      .filter((l) => l.includes("email not sent") || l.includes("sign-in link not sent"));
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]) as { level: string; msg: string; setting: string };
    expect(line.level).toBe("error");
    expect(line.setting).toBe("EMAIL_FROM");
    expect(line.msg).toMatch(/set EMAIL_FROM to an address on a domain verified in your Resend account/);

    const summary = await fetch(`${server.baseUrl}/api/admin/metrics/summary`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(summary.status).toBe(200);
    const emails = (
      (await summary.json()) as {
        emails: { failedLast24h: number; signInFailedLast24h: number; lastFailure: { type: string; error: string } | null };
      }
    ).emails;
    expect(emails).toMatchObject({
      failedLast24h: 1,
      signInFailedLast24h: 1,
      lastFailure: { type: "sign_in", error: expect.stringContaining("EMAIL_FROM") },
    });
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
    expect(((await res.json()) as { error: string }).error).toMatch(
      /try again in a few minutes, and if it keeps failing, contact the site's operator/,
    );
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
