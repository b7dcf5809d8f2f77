import { spawn, spawnSync } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { testDatabaseAdminUrl, withPgClient } from "@/tests/helpers/pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuild, freePort, removeDir, standaloneDir, startServer, type RunningServer } from "@/tests/e2e/server";
import { LEMONSQUEEZY_TEST_PRICING, startLemonSqueezyStub, type LemonSqueezyStub } from "@/tests/helpers/lemonsqueezy-stub";
import { startOpenAiStub, type OpenAiStub } from "@/tests/helpers/openai-stub";
import { startResendStub, type ResendStub } from "@/tests/helpers/resend-stub";
import { startS3rver, type LocalS3 } from "@/tests/helpers/s3rver";
import { startUpstashEmulator, type UpstashEmulator } from "@/tests/helpers/upstash-emulator";
import { containerCommand, DEPLOY_IMAGE, engineRun, extractImageApp, inspectImage } from "./container";

/**
 * Boots production as an operator deploys it: `npm run build` output (the standalone server) copied
 * to a directory with no node_modules beside it, `npm run db:migrate` on a fresh PostgreSQL database,
 * then the server with NODE_ENV=production on real PostgreSQL, redis-server behind the Upstash REST
 * emulator, s3rver, and the OpenAI / Resend / Lemon Squeezy stubs — driven over HTTP only.
 * Needs TEST_DATABASE_URL and TEST_REDIS_PORT (scripts/test-services.sh start).
 *
 * With DEPLOY_IMAGE set (scripts/container-check.sh), the same checks run against the container image
 * built from the Dockerfile instead: its /app is the artifact, its migration command migrates, and
 * its own command serves, in a container on the host's network (tests/deploy/container.ts).
 */
const DIST_DIR = ".next-deploy";
const ROOT = process.cwd();
const PAYMENT_SECRET = "deploy-payment-webhook-secret";
const CRON_SECRET = "deploy-cron-secret";
const OPENAI_KEY = "sk-deploy-suite-key";
const PRICING = LEMONSQUEEZY_TEST_PRICING;

let appDir: string;
let databaseUrl: string;
let databaseName: string;
let server: RunningServer | undefined;
let redis: UpstashEmulator;
let s3: LocalS3;
let openai: OpenAiStub;
let resend: ResendStub;
let lemon: LemonSqueezyStub;
let productionEnv: Record<string, string | undefined>;
const migrateOutput: string[] = [];
const containerName = `svc-deploy-${randomBytes(4).toString("hex")}`;

/** Runs a command to completion, with only the given environment (plus PATH/HOME). */
function run(command: string, args: string[], cwd: string, env: Record<string, string | undefined>) {
  const result = spawnSync(command, args, {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as unknown as NodeJS.ProcessEnv,
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: result.status, output: `${result.stdout ?? ""}${result.stderr ?? ""}` };
}

/** The shipped migration command (`node scripts/db-migrate.mjs` in the artifact, or in the image). */
function runShippedMigrate(env: Record<string, string | undefined>) {
  if (!DEPLOY_IMAGE) return run(process.execPath, ["scripts/db-migrate.mjs"], appDir, env);
  const c = containerCommand(DEPLOY_IMAGE, { env, dataDir: env.DATA_DIR, command: ["node", "scripts/db-migrate.mjs"] });
  return run(c.command, c.args, ROOT, c.env);
}

beforeAll(async () => {
  const admin = testDatabaseAdminUrl();
  const redisPort = Number(process.env.TEST_REDIS_PORT);
  if (!redisPort) throw new Error("TEST_REDIS_PORT is not set");

  if (DEPLOY_IMAGE) {
    console.log(`deploy suite: checking the container image ${DEPLOY_IMAGE}`);
    appDir = extractImageApp(DEPLOY_IMAGE);
  } else {
    ensureBuild(console.log, { distDir: DIST_DIR, label: "deploy" });
    // The artifact alone, in a directory with no node_modules of its own anywhere above it.
    appDir = path.join(mkdtempSync(path.join(tmpdir(), "svc-deploy-")), "app");
    cpSync(standaloneDir(DIST_DIR), appDir, { recursive: true, verbatimSymlinks: true });
  }

  // Not created here: DEPLOY.md's first hour runs db:migrate on a server where it does not exist yet.
  databaseName = `deploy_${randomBytes(5).toString("hex")}`;
  const url = new URL(admin);
  url.pathname = `/${databaseName}`;
  databaseUrl = url.toString();

  [redis, s3, openai, resend, lemon] = await Promise.all([
    startUpstashEmulator({ redisPort }),
    startS3rver("deploy-bucket"),
    startOpenAiStub(),
    startResendStub(),
    startLemonSqueezyStub(),
  ]);
  productionEnv = {
    NODE_ENV: "production",
    DATABASE_URL: databaseUrl,
    ALLOW_EMBEDDED_DATABASE: undefined,
    NEXTAUTH_SECRET: "deploy-nextauth-secret-0123456789abcdef",
    CRON_SECRET,
    AUTH_DEV_LOGIN: "true",
    AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION: "true",
    UPSTASH_REDIS_REST_URL: redis.url,
    UPSTASH_REDIS_REST_TOKEN: redis.token,
    ...s3.env,
    OPENAI_API_KEY: OPENAI_KEY,
    OPENAI_BASE_URL: openai.url,
    ...resend.env,
    EMAIL_FROM: "Deploy Test <noreply@example.com>",
    LEMONSQUEEZY_API_KEY: lemon.apiKey,
    LEMONSQUEEZY_STORE_ID: lemon.storeId,
    LEMONSQUEEZY_API_URL: lemon.url,
    PAYMENT_WEBHOOK_SECRET: PAYMENT_SECRET,
    PRICING_CONFIG: JSON.stringify(PRICING),
    RAG_INDEX_ON_START: "true",
  };
}, 600_000);

afterAll(async () => {
  await server?.stop();
  if (DEPLOY_IMAGE) engineRun(["rm", "--force", "--ignore", containerName]);
  if (server) removeDir(server.dataDir);
  await Promise.all([redis?.close(), s3?.close(), openai?.close(), resend?.close(), lemon?.close()]);
  if (databaseName)
    await withPgClient(testDatabaseAdminUrl(), (c) => c.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`)).catch(
      () => undefined,
    );
  if (appDir) removeDir(path.dirname(appDir));
});

describe("the standalone artifact", () => {
  it("has no node_modules beside it, and carries migrations, knowledge, PGlite's and pdf.js' files", () => {
    for (let dir = path.dirname(appDir); dir !== path.dirname(dir); dir = path.dirname(dir)) {
      expect(existsSync(path.join(dir, "node_modules")), `${dir}/node_modules`).toBe(false);
    }
    expect(readdirSync(path.join(appDir, "prisma", "migrations")).sort()).toEqual(
      readdirSync(path.join(ROOT, "prisma", "migrations")).sort(),
    );
    expect(readdirSync(path.join(appDir, "knowledge")).sort()).toEqual(readdirSync(path.join(ROOT, "knowledge")).sort());
    for (const file of [
      "node_modules/@electric-sql/pglite/dist/pglite.wasm",
      "node_modules/@electric-sql/pglite/dist/pglite.data",
      "node_modules/@electric-sql/pglite-pgvector/dist/vector.tar.gz",
      "node_modules/unpdf/dist/pdfjs.mjs",
      "scripts/db-migrate.mjs",
    ]) {
      expect(existsSync(path.join(appDir, file)), file).toBe(true);
    }
    // Only what the server needs: the sources, tests, docs and the lock are not shipped (a file read
    // at run time under a computed name must not make the build trace whatever matches its pattern).
    for (const absent of ["app", "lib", "tests", "docs", "components", "bench", "package-lock.json"])
      expect(existsSync(path.join(appDir, absent)), absent).toBe(false);
  });

  it.runIf(DEPLOY_IMAGE)("the image runs as its unprivileged user, serves on 3000 and declares a HEALTHCHECK on /api/health", () => {
    const image = DEPLOY_IMAGE!;
    expect(inspectImage(image, "{{.Config.User}}")).toBe("app");
    expect(inspectImage(image, "{{json .Config.Cmd}}")).toBe(`["node","server.js"]`);
    expect(inspectImage(image, "{{json .Config.ExposedPorts}}")).toContain("3000/tcp");
    expect(inspectImage(image, "{{json .HealthCheck}}")).toContain("/api/health");
    const id = engineRun(["run", "--rm", image, "id", "-u"]);
    expect(id.stdout.trim(), id.output).toBe("10001");
  });
});

describe("migrations by explicit command", () => {
  it("npm run db:migrate creates the database when it does not exist, applies every migration, then the container's command finds it up to date", () => {
    const first = run("npm", ["run", "--silent", "db:migrate"], ROOT, { DATABASE_URL: databaseUrl, NODE_ENV: "production" });
    migrateOutput.push(first.output);
    expect(first.status, first.output).toBe(0);
    expect(first.output).toContain(`Created database "${databaseName}" (it did not exist).`);
    const count = readdirSync(path.join(ROOT, "prisma", "migrations"), { withFileTypes: true }).filter((d) => d.isDirectory()).length;
    expect(first.output).toContain(`Applied ${count} migration(s)`);
    expect(first.output).not.toContain(new URL(databaseUrl).password || "\u0000never");

    const again = runShippedMigrate({ DATABASE_URL: databaseUrl, NODE_ENV: "production" });
    expect(again.status, again.output).toBe(0);
    expect(again.output).toContain(`Up to date: all ${count} migrations were already applied.`);
  });

  it("says how to create the database when the role may not (no CREATEDB), and changes nothing", async () => {
    const role = `nocreate_${randomBytes(4).toString("hex")}`;
    const admin = testDatabaseAdminUrl();
    await withPgClient(admin, (c) => c.query(`CREATE ROLE ${role} LOGIN`));
    try {
      const url = new URL(admin);
      url.username = role;
      url.pathname = `/missing_${randomBytes(4).toString("hex")}`;
      const result = run("npm", ["run", "--silent", "db:migrate"], ROOT, { DATABASE_URL: url.toString(), NODE_ENV: "production" });
      expect(result.status).toBe(1);
      expect(result.output).toContain(
        `database "${url.pathname.slice(1)}" does not exist, and it could not be created (role "${role}" may not create databases)`,
      );
      expect(result.output).toContain("createdb -h");
      const exists = await withPgClient(admin, (c) => c.query("SELECT 1 FROM pg_database WHERE datname = $1", [url.pathname.slice(1)]));
      expect(exists.rows).toEqual([]);
    } finally {
      await withPgClient(admin, (c) => c.query(`DROP ROLE IF EXISTS ${role}`));
    }
  });

  it("refuses to migrate the embedded database when DATABASE_URL is unset in production or CI", () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "svc-deploy-embedded-"));
    try {
      const result = runShippedMigrate({ NODE_ENV: "production", DATA_DIR: dataDir, ALLOW_EMBEDDED_DATABASE: "true" });
      expect(result.status).toBe(1);
      expect(result.output).toContain("DATABASE_URL is not set: refusing to migrate the embedded database");
      expect(readdirSync(dataDir)).toEqual([]);
      const ci = run("npm", ["run", "--silent", "db:migrate"], ROOT, { CI: "true", DATA_DIR: dataDir });
      expect(ci.status).toBe(1);
      expect(ci.output).toContain("CI=true");
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      removeDir(dataDir);
    }
  });
});

describe("production server on PostgreSQL, Redis, S3 and the provider stubs", () => {
  let cookie = "";
  let userId = "";

  beforeAll(async () => {
    server = await startServer(productionEnv, {
      serverDir: appDir,
      dataDirPrefix: "svc-deploy-data-",
      readyTimeoutMs: 120_000,
      launch: DEPLOY_IMAGE
        ? (serverEnv, dataDir) => containerCommand(DEPLOY_IMAGE!, { env: serverEnv, dataDir, name: containerName })
        : undefined,
    });
  }, 180_000);

  const url = (p: string) => `${server!.baseUrl}${p}`;

  it("health: 200 with the database connected", async () => {
    const res = await fetch(url("/api/health"));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ status: "healthy", environment: "production", checks: { database: "connected", memory: "ok" } });
    expect(res.headers.get("cache-control")).toContain("no-store");
  });

  it.runIf(DEPLOY_IMAGE)("the image's HEALTHCHECK command passes in the running container", () => {
    const check = engineRun(["healthcheck", "run", containerName]);
    expect(check.status, check.output).toBe(0);
  });

  it("signs in (development sign-in switched on explicitly) and reads the session", async () => {
    const csrfRes = await fetch(url("/api/auth/csrf"));
    const jar = (csrfRes.headers.getSetCookie() ?? []).map((c) => c.split(";")[0]).join("; ");
    const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
    const res = await fetch(url("/api/auth/callback/dev"), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar },
      body: new URLSearchParams({ csrfToken, email: "deploy-user@example.com", json: "true" }),
      redirect: "manual",
    });
    expect([200, 302]).toContain(res.status);
    const session = res.headers.getSetCookie().find((c) => c.startsWith("next-auth.session-token="));
    expect(session).toBeDefined();
    cookie = session!.split(";")[0];
    const me = await (await fetch(url("/api/auth/session"), { headers: { cookie } })).json();
    expect(me.user.email).toBe("deploy-user@example.com");
    userId = me.user.id;
  });

  it("a charged chat goes to the OpenAI-compatible provider and costs 15 credits", async () => {
    const before = await (await fetch(url("/api/ai/usage"), { headers: { cookie } })).json();
    const calls = openai.requests.length;
    const res = await fetch(url("/api/ai/chat"), {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "Hello from the deploy suite" }] }),
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.cost).toBe(15);
    expect(openai.requests.length).toBe(calls + 1);
    expect(openai.requests.at(-1)!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    const after = await (await fetch(url("/api/ai/usage"), { headers: { cookie } })).json();
    expect(after.remaining).toBe(before.remaining - 15);
  });

  it("rate limits are counted in Redis through the Upstash REST protocol", async () => {
    const res = await fetch(url("/api/user/status"), { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBeTruthy();
    expect(redis.commands.length).toBeGreaterThan(0);
  });

  it("uploads a file to S3 and downloads it through its signed address", async () => {
    const content = Buffer.from(`deploy suite file ${randomBytes(8).toString("hex")}\n`);
    const res = await fetch(url(`/api/upload?filename=notes.txt&filesize=${content.length}&filetype=text/plain`), {
      method: "POST",
      headers: { cookie, "content-type": "application/octet-stream" },
      body: content,
    });
    expect(res.status).toBe(200);
    const file = await res.json();
    expect(file).toMatchObject({ originalName: "notes.txt", size: content.length, contentType: "text/plain" });
    expect(file.url.startsWith(s3.endpoint)).toBe(true);
    const download = await fetch(file.url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(content)).toBe(true);
    const meta = await fetch(url(`/api/files/${file.id}`), { headers: { cookie } });
    expect(meta.status).toBe(200);
  });

  it("a signed payment webhook grants the plan's credits; a forged one is refused", async () => {
    const now = new Date().toISOString();
    const event = {
      meta: { event_name: "subscription_created", custom_data: { user_id: userId } },
      data: {
        type: "subscriptions",
        id: "deploy-sub-1",
        attributes: {
          store_id: Number(lemon.storeId) || 1,
          customer_id: 77,
          order_id: 1,
          product_id: 10,
          variant_id: 1101,
          user_email: "deploy-user@example.com",
          status: "active",
          renews_at: "2030-01-01T00:00:00.000Z",
          ends_at: null,
          trial_ends_at: null,
          created_at: now,
          updated_at: now,
          urls: { customer_portal: "https://stub.lemonsqueezy.test/portal", update_payment_method: null },
        },
      },
    };
    const raw = JSON.stringify(event);
    const forged = await fetch(url("/api/webhooks/payment"), {
      method: "POST",
      headers: { "content-type": "application/json", "x-signature": createHmac("sha256", "wrong").update(raw).digest("hex") },
      body: raw,
    });
    expect(forged.status).toBe(401);
    const res = await fetch(url("/api/webhooks/payment"), {
      method: "POST",
      headers: { "content-type": "application/json", "x-signature": createHmac("sha256", PAYMENT_SECRET).update(raw).digest("hex") },
      body: raw,
    });
    expect(res.status).toBe(200);
    const usage = await (await fetch(url("/api/ai/usage"), { headers: { cookie } })).json();
    expect(usage.tier).toBe("pro");
    expect(usage.remaining).toBe(usage.monthlyLimit);
    expect(usage.monthlyLimit).toBeGreaterThan(0);
  });

  it("cron: refused without the bearer secret, runs with it", async () => {
    expect((await fetch(url("/api/cron/expire-bonus-credits"), { method: "POST" })).status).toBe(401);
    const res = await fetch(url("/api/cron/expire-bonus-credits"), { method: "POST", headers: { authorization: `Bearer ${CRON_SECRET}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ success: true, expiredCount: 0 });
  });

  it("stops on SIGTERM, leaving nothing half-written: no open reservation, every balance equals its ledger", async () => {
    await server!.stop();
    expect(server!.child.exitCode !== null || server!.child.signalCode !== null).toBe(true);
    await withPgClient(databaseUrl, async (c) => {
      // No charge left reserved (every request settled or refunded before the answer went out).
      const open = await c.query(`SELECT count(*)::int AS n FROM credit_operations WHERE status = 'reserved'`);
      expect(open.rows[0].n).toBe(0);
      // Every subscription balance equals the sum of its ledger rows, and is never negative.
      const drift = await c.query(
        `SELECT b.user_id, b.subscription_credits, COALESCE(SUM(t.amount), 0)::int AS ledger
           FROM credit_balances b LEFT JOIN credit_transactions t ON t.user_id = b.user_id AND t.bonus_purchase_id IS NULL
          GROUP BY b.user_id, b.subscription_credits
         HAVING b.subscription_credits <> COALESCE(SUM(t.amount), 0) OR b.subscription_credits < 0`,
      );
      expect(drift.rows).toEqual([]);
      // The upload is one file record, its object complete in S3 (no half-written multipart upload).
      const files = await c.query(`SELECT count(*)::int AS n FROM files`);
      expect(files.rows[0].n).toBe(1);
      // The signed webhook was recorded as processed, the forged one not at all.
      const deliveries = await c.query(`SELECT status FROM webhook_deliveries WHERE source = 'payment'`);
      expect(deliveries.rows.map((r) => r.status)).toEqual(["processed"]);
    });
    const listing = await fetch(`${s3.endpoint}/deploy-bucket`).then((r) => r.text());
    expect(listing.match(/<Key>/g)?.length ?? 0).toBe(1);
  });
});

describe("a required setting missing", () => {
  it("the server refuses to start and names every missing variable in one message, before saying Ready", async () => {
    const port = await freePort();
    const bare = { NODE_ENV: "production", PORT: String(port), HOSTNAME: "127.0.0.1" };
    const launched = DEPLOY_IMAGE
      ? containerCommand(DEPLOY_IMAGE, { env: bare })
      : {
          command: process.execPath,
          args: [path.join(appDir, "server.js")],
          env: { PATH: process.env.PATH, HOME: process.env.HOME, ...bare } as unknown as NodeJS.ProcessEnv,
        };
    const child = spawn(launched.command, launched.args, { cwd: appDir, env: launched.env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (output += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (output += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    clearTimeout(timer);
    expect(code, output).toBe(1);
    const message = output.slice(output.indexOf("Invalid configuration:"));
    for (const name of ["NEXTAUTH_SECRET", "CRON_SECRET", "DATABASE_URL"]) expect(message).toContain(name);
    expect(output).not.toMatch(/Ready in/);
  }, 90_000);
});
