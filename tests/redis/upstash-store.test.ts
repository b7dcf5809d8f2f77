import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { GET as userStatus } from "@/app/api/user/status/route";
import { closeDb } from "@/lib/db/client";
import { checkRateLimit } from "@/lib/ratelimit";
import { RATE_LIMIT_WINDOW_MS } from "@/lib/ratelimit/categories";
import { createUpstashStore } from "@/lib/ratelimit/upstash-store";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { startUpstashEmulator, type UpstashEmulator } from "@/tests/helpers/upstash-emulator";

/**
 * The Upstash rate-limit store against the Upstash REST protocol (tests/helpers/upstash-emulator.ts)
 * in front of a real redis-server (TEST_REDIS_PORT, started by scripts/test-services.sh).
 */
const REDIS_PORT = Number(process.env.TEST_REDIS_PORT);
if (!REDIS_PORT) throw new Error("TEST_REDIS_PORT is not set: the redis suite needs redis-server (scripts/test-services.sh start)");

let emulator: UpstashEmulator;
let warnings: Array<Record<string, unknown>> = [];
let restoreEnv: () => void;

beforeAll(async () => {
  emulator = await startUpstashEmulator({ redisPort: REDIS_PORT });
});
afterAll(() => emulator?.close());
beforeEach(() => {
  warnings = [];
  restoreEnv = setEnv({ LOG_LEVEL: "warn" });
  vi.spyOn(console, "error").mockImplementation((line: unknown) => {
    const record = JSON.parse(String(line)) as Record<string, unknown>;
    if (record.level === "warn") warnings.push(record);
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  restoreEnv();
  emulator.setDelay(0);
});

const store = (url = emulator.url, timeoutMs = 1000) => createUpstashStore({ url, token: emulator.token, timeoutMs });

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("AI request slots in Upstash (sorted set and a script, atomic in Redis)", () => {
  it("takes exactly the cap of 40 acquisitions at once, frees a released slot, and lets a slot lapse at its lease", async () => {
    const key = randomUUID();
    const s = store();
    const now = Date.now();
    const ids = Array.from({ length: 40 }, () => randomUUID());
    const taken = await Promise.all(ids.map((id) => s.acquireSlot({ key, id, cap: 8, leaseMs: 60_000, nowMs: now })));
    expect(taken.filter(Boolean)).toHaveLength(8);
    expect(await s.acquireSlot({ key, id: "one-more", cap: 8, leaseMs: 60_000, nowMs: now })).toBe(false);
    await s.releaseSlot(key, ids[taken.indexOf(true)]);
    expect(await s.acquireSlot({ key, id: "after-release", cap: 8, leaseMs: 60_000, nowMs: now })).toBe(true);
    // Past every lease (a process that died holding them): all free again.
    expect(await s.acquireSlot({ key, id: "much-later", cap: 8, leaseMs: 60_000, nowMs: now + 61_000 })).toBe(true);
  });
});

describe("AI slot leases in Upstash", () => {
  it("renews held slots in one pipeline (a renewed slot outlives its first lease) and does not bring back one given back", async () => {
    const key = randomUUID();
    const s = store();
    const now = Date.now();
    expect(await s.acquireSlot({ key, id: "a", cap: 2, leaseMs: 1_000, nowMs: now })).toBe(true);
    expect(await s.acquireSlot({ key, id: "b", cap: 2, leaseMs: 1_000, nowMs: now })).toBe(true);
    await s.releaseSlot(key, "b");
    await s.renewSlots(
      [
        { key, id: "a" },
        { key, id: "b" },
      ],
      60_000,
      now,
    );
    // Past the first lease: "a" still counts, "b" was not added back.
    expect(await s.acquireSlot({ key, id: "c", cap: 2, leaseMs: 60_000, nowMs: now + 5_000 })).toBe(true);
    expect(await s.acquireSlot({ key, id: "d", cap: 2, leaseMs: 60_000, nowMs: now + 5_000 })).toBe(false);
  });
});

describe("Upstash store over the REST protocol, real redis-server behind it", () => {
  it("counts a fixed window: allowed up to the limit, then refused, with the window's reset", async () => {
    const user = randomUUID();
    const s = store();
    const outcomes = [];
    for (let i = 0; i < 6; i++) outcomes.push(await checkRateLimit("email", { userId: user }, { store: s }));
    expect(outcomes.map((o) => o?.allowed)).toEqual([true, true, true, true, true, false]);
    expect(outcomes.map((o) => o?.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    expect(outcomes[0]?.limit).toBe(5);
    const windowEnd = (Math.floor(Date.now() / RATE_LIMIT_WINDOW_MS) + 1) * RATE_LIMIT_WINDOW_MS;
    expect(outcomes[0]?.reset).toBe(windowEnd / 1000);
    expect(warnings).toEqual([]);
    // The Lua script went through EVALSHA/EVAL with the allow-key-locking shebang (stripped by the emulator).
    expect(emulator.commands.some((c) => c[0].toUpperCase().startsWith("EVAL"))).toBe(true);
  });

  it("enforces one limit across two app instances (two store objects) sharing Upstash", async () => {
    const user = randomUUID();
    const [a, b] = [store(), store()];
    const results = [];
    for (let i = 0; i < 22; i++) results.push(await checkRateLimit("payments", { userId: user }, { store: i % 2 ? a : b }));
    expect(results.filter((r) => r?.allowed)).toHaveLength(20);
    expect(results.slice(20).every((r) => r?.allowed === false)).toBe(true);
    // Concurrent checks from both instances never exceed the limit either.
    const ip = `198.51.100.${Math.floor(Math.random() * 250)}-${randomUUID()}`;
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => checkRateLimit("webhooks", { ip }, { store: i % 2 ? a : b })));
    expect(burst.filter((r) => r?.allowed)).toHaveLength(30);
    const more = await Promise.all(Array.from({ length: 80 }, (_, i) => checkRateLimit("webhooks", { ip }, { store: i % 2 ? a : b })));
    expect(more.filter((r) => r?.allowed)).toHaveLength(70);
  });

  it("counts per user and per IP; the outcome describes the tighter window", async () => {
    const ip = `ip-${randomUUID()}`;
    const s = store();
    for (let i = 0; i < 9; i++) await checkRateLimit("email", { userId: randomUUID(), ip }, { store: s });
    expect(await checkRateLimit("email", { userId: randomUUID(), ip }, { store: s })).toMatchObject({
      allowed: true,
      limit: 10,
      remaining: 0,
    });
    expect(await checkRateLimit("email", { userId: randomUUID(), ip }, { store: s })).toMatchObject({ allowed: false, limit: 10 });
  });

  it("is the store the app uses when UPSTASH_REDIS_REST_URL and _TOKEN are set", async () => {
    const restore = setEnv({ UPSTASH_REDIS_REST_URL: emulator.url, UPSTASH_REDIS_REST_TOKEN: emulator.token });
    try {
      const before = emulator.commands.length;
      const outcome = await checkRateLimit("upload", { userId: randomUUID() });
      expect(outcome).toMatchObject({ allowed: true, limit: 10, remaining: 9 });
      expect(emulator.commands.length).toBeGreaterThan(before);
    } finally {
      restore();
    }
  });
});

describe("an endpoint on the Upstash store", () => {
  it("GET /api/user/status counts in Upstash, answers the headers, and refuses the 101st request", async () => {
    const restore = setEnv({ UPSTASH_REDIS_REST_URL: emulator.url, UPSTASH_REDIS_REST_TOKEN: emulator.token });
    try {
      const { cookie, user } = await signIn(`upstash-${randomUUID()}@example.com`);
      const first = await call(userStatus, { path: "/api/user/status", cookie, headers: { "x-forwarded-for": `ip-${user.id}` } });
      expect(first.status).toBe(200);
      expect(first.headers.get("x-ratelimit-limit")).toBe("100");
      expect(first.headers.get("x-ratelimit-remaining")).toBe("99");
      expect(
        emulator.commands.some((c) => c.includes(`ratelimit:api:user:${user.id}`) || c.some((a) => a.includes(`api:user:${user.id}`))),
      ).toBe(true);
      for (let i = 0; i < 99; i++)
        await call(userStatus, { path: "/api/user/status", cookie, headers: { "x-forwarded-for": `ip-${user.id}` } });
      const refused = await call(userStatus, { path: "/api/user/status", cookie, headers: { "x-forwarded-for": `ip-${user.id}` } });
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatch(/^Rate limit exceeded/);
    } finally {
      restore();
      await closeDb();
    }
  });
});

describe("fail-open", () => {
  // An outage is logged when it starts (once, not per request): before each test the store answers
  // again, so each test's failure is a new outage.
  beforeEach(async () => {
    emulator.setDelay(0);
    expect(await checkRateLimit("api", { userId: randomUUID() }, { store: store(emulator.url) })).not.toBeNull();
    warnings = [];
  });

  it("passes and logs a warning when redis-server is stopped behind Upstash", async () => {
    const port = await freePort();
    const child: ChildProcess = spawn("redis-server", ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no"], {
      stdio: "ignore",
    });
    const own = await startUpstashEmulator({ redisPort: port });
    try {
      // Wait until this redis answers through the emulator.
      let ready = false;
      for (let i = 0; i < 50 && !ready; i++) {
        const r = await fetch(own.url, { method: "POST", headers: { authorization: `Bearer ${own.token}` }, body: '["PING"]' }).catch(
          () => null,
        );
        ready = r?.status === 200;
        if (!ready) await new Promise((res) => setTimeout(res, 100));
      }
      expect(ready).toBe(true);
      const s = createUpstashStore({ url: own.url, token: own.token, timeoutMs: 1000 });
      const user = randomUUID();
      expect(await checkRateLimit("email", { userId: user }, { store: s })).toMatchObject({ allowed: true, remaining: 4 });
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
      const started = Date.now();
      expect(await checkRateLimit("email", { userId: user }, { store: s })).toBeNull();
      expect(Date.now() - started).toBeLessThan(1500);
      expect(warnings).toEqual([
        expect.objectContaining({ msg: "dependency unavailable", dependency: "rate-limit store (upstash)", store: "upstash" }),
      ]);
      // Still down: the next request passes too, and nothing more is logged.
      expect(await checkRateLimit("email", { userId: user }, { store: s })).toBeNull();
      expect(warnings).toHaveLength(1);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      await own.close();
    }
  });

  it("passes and logs a warning when Upstash itself is unreachable", async () => {
    const s = store(`http://127.0.0.1:${await freePort()}`);
    expect(await checkRateLimit("api", { userId: randomUUID(), ip: "192.0.2.1" }, { store: s })).toBeNull();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ msg: "dependency unavailable", store: "upstash", effect: "requests are allowed without a limit" });
  });

  it("passes and logs a warning when Upstash answers slower than the timeout", async () => {
    emulator.setDelay(3000);
    const s = store(emulator.url, 300);
    const started = Date.now();
    expect(await checkRateLimit("api", { userId: randomUUID() }, { store: s })).toBeNull();
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(1500);
    expect(warnings[0]).toMatchObject({ store: "upstash", error: expect.stringMatching(/did not answer within 300 ms|timed out/) });
  });

  it("refuses a wrong token (an error, so the request passes with a warning)", async () => {
    const s = createUpstashStore({ url: emulator.url, token: "wrong", timeoutMs: 1000 });
    expect(await checkRateLimit("api", { userId: randomUUID() }, { store: s })).toBeNull();
    expect(warnings[0]?.error).toMatch(/Unauthorized/);
  });
});
