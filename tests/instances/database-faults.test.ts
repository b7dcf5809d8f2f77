import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations } from "@/lib/db/migrate";
import { Client } from "@/tests/e2e/client";
import { ensureBuild, removeDir, startServer, type RunningServer } from "@/tests/e2e/server";
import { startOpenAiStub, type OpenAiStub } from "@/tests/helpers/openai-stub";
import { testDatabaseAdminUrl, withPgClient } from "@/tests/helpers/pg";
import { tcpRelay } from "@/tests/helpers/tcp-relay";
import { waitUntil } from "@/tests/helpers/wait-until";

/**
 * The money through a database outage, as production meets it (issue 46): a production server (the
 * standalone build) on a real PostgreSQL reached through a TCP relay that can drop every connection
 * and refuse new ones, under steady charged load (16 clients of 8 users: chat, stream, /v1 JSON and
 * /v1 stream against the stub provider), through five faults: connections killed, a 2 s restart, a
 * 10 s crash, down past AI_TIMEOUT_MS, and a crash of the database together with the server. After
 * each, per user: the balance moved by exactly the charges the answers reported, nothing stays
 * `reserved`, no delivered answer was refunded, no slot stays held; every refusal was a 503 with
 * Retry-After, never a 500; the log has no stack and a line per state change, not one per request.
 */
beforeAll(() => ensureBuild(console.log), 600_000);

const ADMIN_TOKEN = "faults-admin-token-0123456789abcdef";
const USERS = 8;
const CLIENTS = 16;
const KINDS = ["chat", "stream", "v1", "v1-stream"] as const;
type Kind = (typeof KINDS)[number];

interface Outcome {
  user: number;
  kind: Kind;
  status: number | "network";
  /** The charge the answer reported (delivered answers only). */
  charged?: number;
  problem?: string;
}

interface User {
  id: string;
  client: Client;
  key: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each([{ mode: "flat" }, { mode: "metered" }])("database faults under charged load ($mode pricing)", ({ mode }) => {
  const name = `faults_${randomBytes(5).toString("hex")}`;
  const admin = testDatabaseAdminUrl();
  const direct = new URL(admin);
  direct.pathname = `/${name}`;
  const relay = tcpRelay(direct);
  let stub: OpenAiStub;
  let server: RunningServer;
  let serverEnv: Record<string, string | undefined>;
  const users: User[] = [];
  const sql = <T = Record<string, unknown>>(text: string, params?: unknown[]) =>
    withPgClient(direct.toString(), async (c) => (await c.query(text, params as unknown[])).rows as T[]);

  beforeAll(async () => {
    await withPgClient(admin, (c) => c.query(`CREATE DATABASE ${name}`));
    await withPgClient(direct.toString(), (c) =>
      applyMigrations({
        exec: async (text) => {
          await c.query(text);
        },
        query: async (text, params) => (await c.query(text, params as unknown[])).rows,
      }),
    );
    const viaRelay = new URL(direct);
    viaRelay.host = `127.0.0.1:${await relay.listen()}`;
    stub = await startOpenAiStub({ chunkDelayMs: 15, replyWords: 12 });
    // Calls spend a while at the provider, so faults meet some of them there.
    stub.setDefault("chat", { kind: "delay", ms: 150 });
    stub.setDefault("stream", { kind: "delay", ms: 100 });
    serverEnv = {
      DATABASE_URL: viaRelay.toString(),
      ALLOW_EMBEDDED_DATABASE: undefined,
      DATABASE_POOL_MAX: "10",
      OPENAI_API_KEY: "sk-faults-upstream",
      OPENAI_BASE_URL: stub.url,
      AI_PRICING_MODE: mode,
      AI_MAX_CONCURRENT_PER_USER: "8",
      // "Down past AI_TIMEOUT_MS" in seconds, not minutes.
      AI_TIMEOUT_MS: "4000",
      ADMIN_API_TOKEN: ADMIN_TOKEN,
      LOG_LEVEL: "info",
    };
    server = await startServer(serverEnv, { dataDirPrefix: "svc-faults-" });
    for (let u = 0; u < USERS; u++) {
      const client = new Client(server.baseUrl);
      expect((await client.signIn(`faults-${mode}-${u}@example.com`)).status).toBe(200);
      const { body: session } = await client.json<{ user: { id: string } }>("/api/auth/session");
      const key = await client.json<{ secret: string }>("/api/keys", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "faults" }),
      });
      expect(key.status).toBe(200);
      const credit = await fetch(`${server.baseUrl}/api/admin/users/${session.user.id}/credits`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({
          amount: 1_000_000,
          bucket: "subscription",
          reason: "fault suite",
          idempotencyKey: `faults-${session.user.id}`,
        }),
      });
      expect(credit.status).toBe(200);
      users.push({ id: session.user.id, client, key: key.body.secret });
    }
  }, 300_000);

  afterAll(async () => {
    relay.up();
    await server?.stop();
    if (server) removeDir(server.dataDir);
    await stub?.close();
    await relay.close();
    await withPgClient(admin, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).catch(() => undefined);
  });

  /** One charged call of `kind` for `user`, classified: what it reported charging when delivered, else why not. */
  async function oneCall(u: number, kind: Kind): Promise<Outcome> {
    const user = users[u];
    const prompt = `fault ${randomUUID()}`;
    const v1 = kind === "v1" || kind === "v1-stream";
    const stream = kind === "stream" || kind === "v1-stream";
    const path = v1 ? "/v1/chat/completions" : kind === "chat" ? "/api/ai/chat" : "/api/ai/stream";
    const body = v1
      ? {
          model: "gpt-4o-mini",
          messages: [{ role: "user", content: prompt }],
          ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
        }
      : { messages: [{ role: "user", content: prompt }] };
    const headers: Record<string, string> = { "content-type": "application/json", ...(v1 ? { authorization: `Bearer ${user.key}` } : {}) };
    let res: Response;
    let text: string;
    try {
      res = await (v1
        ? fetch(`${server.baseUrl}${path}`, { method: "POST", headers, body: JSON.stringify(body) })
        : user.client.fetch(path, { method: "POST", headers, body: JSON.stringify(body) }));
      text = await res.text();
    } catch {
      return { user: u, kind, status: "network" };
    }
    const outcome: Outcome = { user: u, kind, status: res.status };
    if (res.status === 200) {
      if (!stream) {
        const json = JSON.parse(text) as { cost?: number; usage?: { credits_charged?: number } };
        outcome.charged = v1 ? json.usage?.credits_charged : json.cost;
      } else if (v1) {
        const usage = text
          .split("\n")
          .filter((l) => l.startsWith("data: {"))
          .map((l) => JSON.parse(l.slice(6)) as { usage?: { credits_charged?: number } | null })
          .find((c) => c.usage?.credits_charged !== undefined);
        outcome.charged = usage?.usage?.credits_charged;
      } else {
        const meta = /event: meta\ndata: (\{.*\})/.exec(text);
        outcome.charged = meta ? (JSON.parse(meta[1]) as { creditsUsed: number }).creditsUsed : undefined;
      }
      // A stream cut before its end (the server killed): not delivered.
      if (outcome.charged === undefined && !stream) outcome.problem = `200 without a charge: ${text.slice(0, 200)}`;
    } else if (res.status === 503) {
      const json = JSON.parse(text) as { code?: string; error?: { code?: string } };
      const code = v1 ? json.error?.code : json.code;
      if (code !== (v1 ? "service_unavailable" : "unavailable") || !(Number(res.headers.get("retry-after")) > 0))
        outcome.problem = `503 without the outage's shape: ${res.headers.get("retry-after")} ${text.slice(0, 200)}`;
    } else outcome.problem = `${res.status}: ${text.slice(0, 300)}`;
    return outcome;
  }

  /** Runs the load until `stop()`: CLIENTS clients, two per user, each cycling through the kinds. */
  function startLoad() {
    const outcomes: Outcome[] = [];
    let running = true;
    const workers = Array.from({ length: CLIENTS }, async (_, c) => {
      let i = c;
      while (running) {
        const outcome = await oneCall(c % USERS, KINDS[i++ % KINDS.length]);
        outcomes.push(outcome);
        // A refused or failed call waits a little, as a client honouring Retry-After would (not 2 s: the suite would idle).
        if (outcome.status !== 200) await sleep(100);
      }
    });
    return {
      outcomes,
      stop: async () => {
        running = false;
        await Promise.all(workers);
        return outcomes;
      },
    };
  }

  async function balances(): Promise<Map<string, number>> {
    const rows = await sql<{ user_id: string; subscription_credits: number }>(
      "SELECT user_id, subscription_credits FROM credit_balances WHERE user_id = ANY($1)",
      [users.map((u) => u.id)],
    );
    return new Map(rows.map((r) => [r.user_id, Number(r.subscription_credits)]));
  }

  async function settledCount(): Promise<Map<string, number>> {
    const rows = await sql<{ user_id: string; n: number }>(
      "SELECT user_id, count(*)::int AS n FROM credit_operations WHERE kind = 'charge' AND status = 'settled' AND user_id = ANY($1) GROUP BY user_id",
      [users.map((u) => u.id)],
    );
    return new Map(rows.map((r) => [r.user_id, r.n]));
  }

  const logSize = () => readFileSync(server.logFile, "utf8").length;
  const logSince = (offset: number) =>
    readFileSync(server.logFile, "utf8")
      .slice(offset)
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { level: string; msg: string; [k: string]: unknown });

  /**
   * Runs `fault` under load (2 s of load before it, 2 s after it ends), then checks what must hold
   * after a fault; answers the log lines written meanwhile.
   */
  async function underLoad(fault: () => Promise<void>, options: { serverDies?: boolean } = {}) {
    const before = await balances();
    const settledBefore = await settledCount();
    // A server started after a crash appends to the same log file.
    const offset = logSize();
    const load = startLoad();
    await sleep(2_000);
    await fault();
    await sleep(2_000);
    const outcomes = await load.stop();

    // Every refusal was the outage's 503 (never a 500, never a 429 from a slot left held).
    const problems = outcomes.filter((o) => o.problem || (o.status === "network" && !options.serverDies));
    expect(problems.slice(0, 5)).toEqual([]);
    const delivered = outcomes.filter((o) => o.status === 200 && o.charged !== undefined);
    expect(delivered.length).toBeGreaterThan(CLIENTS);

    // Nothing stays reserved once the database is back (kept settlements written, unanswered reservations refunded).
    await waitUntil(
      "no charge reserved a minute after recovery",
      async () => (await sql<{ n: number }>("SELECT count(*)::int AS n FROM credit_operations WHERE status = 'reserved'"))[0].n === 0,
      60_000,
    );
    const after = await balances();
    const settledAfter = await settledCount();
    for (const [u, user] of users.entries()) {
      const mine = delivered.filter((o) => o.user === u);
      const reported = mine.reduce((sum, o) => sum + (o.charged ?? 0), 0);
      // The balance moved by exactly what the answers reported charging.
      expect({ user: u, spent: (before.get(user.id) ?? 0) - (after.get(user.id) ?? 0) }).toEqual({ user: u, spent: reported });
      // As many charges newly settled as answers delivered: none of them was refunded.
      expect({ user: u, settled: (settledAfter.get(user.id) ?? 0) - (settledBefore.get(user.id) ?? 0) }).toEqual({
        user: u,
        settled: mine.length,
      });
    }
    // No slot of a live server is still held.
    await waitUntil(
      "the AI slots to be free",
      async () =>
        (
          await sql<{ n: number }>(
            "SELECT count(*)::int AS n FROM ai_request_slots s JOIN server_instances i ON i.id = s.instance_id WHERE i.stopped_at IS NULL AND i.heartbeat_at > now() - interval '60 seconds'",
          )
        )[0].n === 0,
      10_000,
    );
    const lines = logSince(offset);
    // No stack in the log, and a handful of error lines at most (one per state change, not per request).
    expect(lines.filter((l) => JSON.stringify(l).includes("    at ")).map((l) => l.msg)).toEqual([]);
    const errors = lines.filter((l) => l.level === "error" || l.level === "fatal").map((l) => l.msg);
    expect(errors.length, errors.join("\n")).toBeLessThanOrEqual(3);
    return { outcomes, lines };
  }

  it("connections killed (pg_terminate_backend)", async () => {
    await underLoad(async () => {
      await withPgClient(admin, (c) =>
        c.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [name]),
      );
    });
  }, 180_000);

  it("a 2 s restart", async () => {
    await underLoad(() => relay.restart(2_000));
  }, 180_000);

  it("a 10 s crash: 503s meanwhile, one line when it goes down, at most one while it stays down, one when it is back", async () => {
    const { outcomes, lines } = await underLoad(() => relay.restart(10_000));
    expect(outcomes.filter((o) => o.status === 503).length).toBeGreaterThan(0);
    const count = (msg: string) => lines.filter((l) => l.msg === msg).length;
    expect(count("database unreachable: requests answer 503 until it is back")).toBe(1);
    expect(count("database still unreachable")).toBeLessThanOrEqual(1);
    expect(count("database reachable again")).toBe(1);
  }, 180_000);

  it("down past AI_TIMEOUT_MS (calls at the provider answer, their settlements land afterwards)", async () => {
    await underLoad(() => relay.restart(6_000));
  }, 180_000);

  it("a crash of the database together with the server: the next server writes the settlements the dead one kept and refunds only what was never delivered", async () => {
    const { lines } = await underLoad(
      async () => {
        relay.down();
        await sleep(1_000);
        // The server dies while the database is away: what it kept is in its journal.
        server.child.kill("SIGKILL");
        await new Promise((r) => server.child.once("exit", r));
        // What the sweep's own waits would do in production: the dead process's heartbeat long gone, its charges past the 2-minute wait.
        await sql("UPDATE server_instances SET heartbeat_at = now() - interval '10 minutes' WHERE stopped_at IS NULL");
        await sql("UPDATE credit_operations SET created_at = created_at - interval '3 minutes' WHERE status = 'reserved'");
        relay.up();
        server = await startServer(serverEnv, { dataDir: server.dataDir });
        for (const u of users) (u.client as { baseUrl: string }).baseUrl = server.baseUrl;
      },
      { serverDies: true },
    );
    expect(lines.some((l) => l.msg === "settlements kept by a stopped server written")).toBe(true);
  }, 240_000);
});
