import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOpenAiStub, type OpenAiStub } from "@/tests/helpers/openai-stub";
import { Client } from "./client";
import { freePort, removeDir, startServer, type RunningServer } from "./server";

/**
 * Stopping under a supervisor: SIGTERM while charged calls are in flight lets them finish, writes
 * their settlements and closes the database before the process exits 0; nothing is lost (the ledger
 * read after a restart on the same data). `npm start` passes the signal on: nothing is left listening.
 */
let stub: OpenAiStub;
beforeAll(async () => {
  stub = await startOpenAiStub();
});
afterAll(async () => {
  await stub?.close();
});

async function exitOf(server: RunningServer): Promise<number | null> {
  if (server.child.exitCode !== null) return server.child.exitCode;
  return new Promise((resolve) => server.child.once("exit", (code) => resolve(code)));
}

describe("graceful shutdown", () => {
  it("SIGTERM under load: the calls in flight are answered and settled, then the server exits 0", async () => {
    const env = { OPENAI_API_KEY: "sk-shutdown", OPENAI_BASE_URL: stub.url };
    const first = await startServer(env, { dataDirPrefix: "svc-stop-" });
    const client = new Client(first.baseUrl);
    await client.signIn("stopping@example.com");
    const before = (await client.json<{ remaining: number }>("/api/ai/usage")).body;
    stub.setDefault("chat", { kind: "delay", ms: 1500 });
    const calls = Array.from({ length: 8 }, () =>
      client.fetch("/api/ai/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: "finish me" }] }),
      }),
    );
    const deadline = Date.now() + 10_000;
    while (stub.count("chat") < 8 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    process.kill(first.pid, "SIGTERM");
    const answers = await Promise.all(calls);
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(await exitOf(first)).toBe(0);
    stub.setDefault("chat", null);
    // New connections are refused once it stopped.
    await expect(fetch(`${first.baseUrl}/api/health`)).rejects.toThrow();

    const again = await startServer(env, { dataDir: first.dataDir });
    try {
      const back = new Client(again.baseUrl);
      await back.signIn("stopping@example.com");
      const after = (await back.json<{ remaining: number }>("/api/ai/usage")).body;
      expect(before.remaining - after.remaining).toBe(8 * 15);
      const history = (await back.json<{ transactions: Array<{ type: string; amount: number }> }>("/api/credits/history")).body
        .transactions;
      expect(history.filter((t) => t.type === "usage").reduce((sum, t) => sum + t.amount, 0)).toBe(-120);
    } finally {
      await again.stop();
      removeDir(again.dataDir);
    }
  }, 90_000);

  it("npm start passes SIGTERM to the server: nothing is left listening", async () => {
    const port = await freePort();
    const child = spawn("npm", ["start"], {
      env: {
        ...process.env,
        PORT: String(port),
        HOSTNAME: "127.0.0.1",
        NODE_ENV: "production",
        ALLOW_EMBEDDED_DATABASE: "true",
        AI_OFFLINE: "true",
        PAYMENTS_ENABLED: "false",
        NEXTAUTH_SECRET: "n".repeat(40),
        CRON_SECRET: "c".repeat(40),
        AUTH_DEV_LOGIN: "true",
        AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION: "true",
        PGLITE_DATA_DIR: "memory://",
        DATA_DIR: `/tmp/svc-npm-start-${port}`,
        RAG_INDEX_ON_START: "false",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const ready = Date.now() + 60_000;
    let up = false;
    while (!up && Date.now() < ready) {
      up = await fetch(`http://127.0.0.1:${port}/api/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (!up) await new Promise((r) => setTimeout(r, 250));
    }
    expect(up, output).toBe(true);
    child.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
    expect([0, 143]).toContain(code);
    await new Promise((r) => setTimeout(r, 500));
    await expect(fetch(`http://127.0.0.1:${port}/api/health`)).rejects.toThrow();
    expect(output).toContain("shutting down");
    removeDir(`/tmp/svc-npm-start-${port}`);
  }, 90_000);
});
