import { request } from "node:http";
import { createServer } from "node:net";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@/tests/e2e/client";
import { ensureBuild, freePort, removeDir, startServer, type RunningServer } from "@/tests/e2e/server";
import { startOpenAiStub, type OpenAiStub } from "@/tests/helpers/openai-stub";
import { useFreshPostgres, withPgClient } from "@/tests/helpers/pg";
import { waitUntil } from "@/tests/helpers/wait-until";
import { metricValue } from "@/tests/helpers/prometheus";

/**
 * WEB_CONCURRENCY (lib/server/server-processes.ts): one standalone server with two server processes
 * on PostgreSQL. Both answer (each its own instance row), charges are exact across them, /api/metrics
 * adds both up, a killed process is replaced, SIGTERM drains both and exits 0; the embedded database
 * stays one process and says so; a server whose processes keep dying exits 1.
 */
beforeAll(() => ensureBuild(console.log), 600_000);

const METRICS_TOKEN = "processes-metrics-token-0123456789";
const url = await useFreshPostgres();
const sql = <T = Record<string, unknown>>(text: string, params?: unknown[]) =>
  withPgClient(url, async (c) => (await c.query(text, params as unknown[])).rows as T[]);

/** A GET on a connection of its own (no keep-alive): the cluster hands each new connection to the next process. */
function getOnNewConnection(base: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { agent: false, headers: { ...headers, connection: "close" } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

const logLines = (server: RunningServer) =>
  readFileSync(server.logFile, "utf8")
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { level: string; msg: string; [k: string]: unknown });

describe("WEB_CONCURRENCY=2 on PostgreSQL", () => {
  let stub: OpenAiStub;
  let server: RunningServer;
  beforeAll(async () => {
    stub = await startOpenAiStub();
    server = await startServer(
      {
        DATABASE_URL: url,
        ALLOW_EMBEDDED_DATABASE: undefined,
        WEB_CONCURRENCY: "2",
        METRICS_TOKEN,
        // The 12 concurrent chats of one user below all reach the provider.
        AI_MAX_CONCURRENT_PER_USER: "32",
        OPENAI_API_KEY: "sk-processes",
        OPENAI_BASE_URL: stub.url,
        LOG_LEVEL: "info",
      },
      { dataDirPrefix: "svc-processes-" },
    );
    // Both processes registered (the first answer may come before the second is up).
    await waitUntil("two server processes registered", async () => (await sql("SELECT id FROM server_instances")).length === 2, 60_000);
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
    await stub?.close();
  });

  it("starts two server processes under a primary that serves nothing; both answer, charges are exact, /api/metrics adds both up", async () => {
    const rows = await sql<{ pid: number; stopped_at: Date | null }>("SELECT pid, stopped_at FROM server_instances");
    expect(rows.map((r) => r.pid)).not.toContain(server.pid);
    expect(new Set(rows.map((r) => r.pid)).size).toBe(2);
    expect(logLines(server).some((l) => l.msg === "starting server processes" && l.processes === 2 && l.primaryPid === server.pid)).toBe(
      true,
    );

    const owner = new Client(server.baseUrl);
    expect((await owner.signIn("processes@example.com")).status).toBe(200);
    const cookie = { cookie: `next-auth.session-token=${owner.cookies.get("next-auth.session-token")}` };
    const metrics = async () => {
      const res = await fetch(`${server.baseUrl}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(res.status).toBe(200);
      return res.text();
    };
    const status = { route: "/api/user/status", method: "GET", status: "200" };
    const before = metricValue(await metrics(), "http_requests_total", status);
    // 30 requests on 30 connections: the cluster deals connections round robin, so each process answers some.
    for (let i = 0; i < 30; i++) expect(await getOnNewConnection(server.baseUrl, "/api/user/status", cookie)).toBe(200);
    const after = await metrics();
    expect(metricValue(after, "http_requests_total", status) - before).toBe(30);
    // Both processes answered the scrape, whichever took it.
    expect(metricValue(after, "server_processes", {})).toBe(2);

    // 12 charged chats at once: each settled once, the balance moved by exactly their charges, the ledger adds up.
    const [{ id }] = await sql<{ id: string }>("SELECT id FROM users WHERE email = 'processes@example.com'");
    const balance = async () =>
      (await sql<{ b: number }>("SELECT subscription_credits AS b FROM credit_balances WHERE user_id = $1", [id]))[0].b;
    const start = await balance();
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        fetch(`${server.baseUrl}/api/ai/chat`, {
          method: "POST",
          headers: { ...cookie, "content-type": "application/json" },
          body: JSON.stringify({ messages: [{ role: "user", content: "hello" }] }),
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(200));
    const chargesOf = () =>
      sql<{ status: string; amount: number }>("SELECT status, amount FROM credit_operations WHERE user_id = $1 AND kind = 'charge'", [id]);
    // Settlements are written just after the answers (gathered per event-loop turn).
    await waitUntil("the 12 charges settled", async () => (await chargesOf()).filter((c) => c.status === "settled").length === 12);
    const charges = await chargesOf();
    expect(charges.map((c) => c.status)).toEqual(Array(12).fill("settled"));
    expect(start - (await balance())).toBe(charges.reduce((sum, c) => sum + c.amount, 0));
    const [ledger] = await sql<{ sum: string }>(
      "SELECT COALESCE(SUM(amount), 0) AS sum FROM credit_transactions WHERE user_id = $1 AND bonus_purchase_id IS NULL",
      [id],
    );
    expect(Number(ledger.sum)).toBe(await balance());
    const chats = { route: "/api/ai/chat", method: "POST", status: "200" };
    expect(metricValue(await metrics(), "http_requests_total", chats)).toBe(12);
  });

  it("replaces a process that dies; the new one registers and answers", async () => {
    const [victim] = await sql<{ pid: number }>("SELECT pid FROM server_instances WHERE stopped_at IS NULL ORDER BY started_at LIMIT 1");
    process.kill(victim.pid, "SIGKILL");
    await waitUntil(
      "a third server process registered",
      async () => (await sql("SELECT id FROM server_instances WHERE pid <> $1", [victim.pid])).length === 2,
      60_000,
    );
    expect(
      logLines(server).some((l) => l.level === "error" && l.msg === "a server process exited; starting another" && l.pid === victim.pid),
    ).toBe(true);
    for (let i = 0; i < 6; i++) expect(await getOnNewConnection(server.baseUrl, "/api/health")).toBe(200);
  });

  it("SIGTERM drains every process (a call in flight is answered), marks them stopped, and the primary exits 0", async () => {
    stub.next("chat", { kind: "delay", ms: 1500 });
    const owner = new Client(server.baseUrl);
    await owner.signIn("processes@example.com");
    const inFlight = owner.fetch("/api/ai/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "slow" }] }),
    });
    await waitUntil(
      "the slow call reached the provider",
      async () => stub.requests.some((r) => JSON.stringify(r.body).includes("slow")),
      10_000,
    );
    const exited = new Promise<number | null>((resolve) => server.child.once("exit", (code) => resolve(code)));
    process.kill(server.pid, "SIGTERM");
    expect((await inFlight).status).toBe(200);
    expect(await exited).toBe(0);
    const live = await sql<{ pid: number; stopped_at: Date | null }>(
      "SELECT pid, stopped_at FROM server_instances WHERE heartbeat_at > now() - interval '1 minute' AND pid IN (SELECT pid FROM server_instances ORDER BY started_at DESC LIMIT 2)",
    );
    expect(live.length).toBe(2);
    expect(live.every((r) => r.stopped_at !== null)).toBe(true);
    const lines = logLines(server);
    expect(lines.filter((l) => l.msg === "stopped").length).toBe(2);
    expect(lines.some((l) => l.msg === "every server process stopped" && l.failed === false)).toBe(true);
  });
});

describe("WEB_CONCURRENCY where it cannot run", () => {
  it("the embedded database stays one process, and the log says WEB_CONCURRENCY is ignored; its AI slots are the process's, whichever path answers", async () => {
    const stub = await startOpenAiStub();
    const server = await startServer(
      {
        WEB_CONCURRENCY: "2",
        LOG_LEVEL: "info",
        AI_MAX_CONCURRENT_PER_USER: "2",
        OPENAI_API_KEY: "sk-processes",
        OPENAI_BASE_URL: stub.url,
      },
      { dataDirPrefix: "svc-processes-embedded-" },
    );
    try {
      expect((await fetch(`${server.baseUrl}/api/health`)).status).toBe(200);
      const lines = logLines(server);
      expect(lines.some((l) => /WEB_CONCURRENCY is ignored on the embedded database/.test(l.msg))).toBe(true);
      expect(lines.some((l) => l.msg === "starting server processes")).toBe(false);

      // The embedded database counts a user's AI calls in progress in the process: the gateway lane
      // (its own bundle) and Next's route bundles must count in one place. Two chats hang in the lane;
      // an embeddings call, answered by Next's router, is the third and is refused.
      const person = new Client(server.baseUrl);
      expect((await person.signIn("processes-slots@example.com")).status).toBe(200);
      const key = await person.json<{ secret: string }>("/api/keys", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "slots" }),
      });
      expect(key.status).toBe(200);
      stub.next("chat", { kind: "hang" }, 2);
      const aborts = [new AbortController(), new AbortController()];
      const hanging = aborts.map((a) =>
        person
          .fetch("/api/ai/chat", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ messages: [{ role: "user", content: "wait" }] }),
            signal: a.signal,
          })
          .catch(() => null),
      );
      await waitUntil("two chats at the provider", async () => stub.count("chat") === 2, 15_000);
      const embeddings = await fetch(`${server.baseUrl}/v1/embeddings`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key.body.secret}` },
        body: JSON.stringify({ model: "text-embedding-3-small", input: "third" }),
      });
      expect(embeddings.status).toBe(429);
      expect(stub.count("embeddings")).toBe(0);
      for (const a of aborts) a.abort();
      await Promise.all(hanging);
    } finally {
      await server.stop();
      removeDir(server.dataDir);
      await stub.close();
    }
  }, 180_000);

  it("processes that keep dying (the port is taken): the primary gives up and exits 1, saying so", async () => {
    const port = await freePort();
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(port, "127.0.0.1", resolve));
    try {
      const failure = startServer(
        { DATABASE_URL: url, ALLOW_EMBEDDED_DATABASE: undefined, WEB_CONCURRENCY: "2", PORT: String(port), LOG_LEVEL: "info" },
        { dataDirPrefix: "svc-processes-dying-", readyTimeoutMs: 60_000 },
      );
      await expect(failure).rejects.toThrow(
        /server exited with 1 before it was ready[\s\S]*server processes exited within a minute; stopping/,
      );
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  }, 120_000);
});
