import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { GET as userStatus } from "@/app/api/user/status/route";
import { closeDb, db } from "@/lib/db/client";
import { metrics } from "@/lib/metrics";
import { checkRateLimit } from "@/lib/ratelimit";
import { RATE_LIMIT_CATEGORIES, RATE_LIMIT_WINDOW_MS } from "@/lib/ratelimit/categories";
import { databaseStore } from "@/lib/ratelimit/database-store";
import type { RateLimitStore } from "@/lib/ratelimit/store";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";

afterAll(closeDb);
// Open (and migrate) the database first, as the server does at start-up: opening takes longer than
// the store timeout, which would make the first check fail open.
beforeAll(async () => {
  await db();
});

let warnings: Array<Record<string, unknown>> = [];
let restoreEnv: () => void;
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
});

const HOUR = RATE_LIMIT_WINDOW_MS;

async function failOpenCount(store: string): Promise<number> {
  const { values } = await metrics().rateLimitFailOpen.get();
  return values.find((v) => v.labels.store === store)?.value ?? 0;
}
const at = (hour: number, minute = 0) => Date.UTC(2030, 0, 1, hour, minute);

describe("rate limits on the database store (SPEC §8)", () => {
  it("declares the categories of SPEC §8 exactly, and this service's own, each saying what it protects", () => {
    const figures = Object.fromEntries(
      Object.entries(RATE_LIMIT_CATEGORIES).map(([name, c]) => [name, { perUser: c.perUser, perIp: c.perIp, spec: c.spec }]),
    );
    expect(figures).toEqual({
      upload: { perUser: 10, perIp: 20, spec: true },
      email: { perUser: 5, perIp: 10, spec: true },
      contact: { perUser: null, perIp: 3, spec: true },
      payments: { perUser: 20, perIp: null, spec: true },
      webhooks: { perUser: null, perIp: 100, spec: true },
      api: { perUser: 100, perIp: 200, spec: true },
      admin: { perUser: 1000, perIp: 2000, spec: false },
      v1: { perUser: 10_000, perIp: null, spec: false },
      reports: { perUser: 600, perIp: 1200, spec: false },
      writes: { perUser: 300, perIp: 600, spec: false },
      outbound: { perUser: 60, perIp: 120, spec: false },
      tokens: { perUser: 30, perIp: 60, spec: false },
    });
    for (const c of Object.values(RATE_LIMIT_CATEGORIES)) expect(c.protects.length).toBeGreaterThan(10);
    expect(HOUR).toBe(3_600_000);
  });

  it("counts per user in a fixed one-hour window and resets at the next window", async () => {
    const now = at(1, 10);
    for (let i = 1; i <= 5; i++) {
      const r = await checkRateLimit("email", { userId: "u-window" }, { nowMs: now });
      expect(r).toEqual({ allowed: true, limit: 5, remaining: 5 - i, reset: at(2) / 1000 });
    }
    expect(await checkRateLimit("email", { userId: "u-window" }, { nowMs: at(1, 59) })).toMatchObject({ allowed: false, remaining: 0 });
    expect(await checkRateLimit("email", { userId: "u-window" }, { nowMs: at(2, 0) })).toEqual({
      allowed: true,
      limit: 5,
      remaining: 4,
      reset: at(3) / 1000,
    });
  });

  it("counts both the per-user and the per-IP window; the outcome describes the tighter one", async () => {
    const now = at(5);
    // Eight users behind one IP use the email category (5/user, 10/IP).
    for (let i = 0; i < 8; i++) await checkRateLimit("email", { userId: `u-ip-${i}`, ip: "198.51.100.7" }, { nowMs: now });
    // A fresh user: their own window has 4 left, the IP's only 1 (10 - 9): the IP window is reported.
    expect(await checkRateLimit("email", { userId: "u-fresh", ip: "198.51.100.7" }, { nowMs: now })).toMatchObject({
      allowed: true,
      limit: 10,
      remaining: 1,
    });
    // Same user from another IP: the user window (4 - 1 = 3 left) is tighter than the new IP's (9).
    expect(await checkRateLimit("email", { userId: "u-fresh", ip: "203.0.113.1" }, { nowMs: now })).toMatchObject({
      allowed: true,
      limit: 5,
      remaining: 3,
    });
    await checkRateLimit("email", { userId: "u-other", ip: "198.51.100.7" }, { nowMs: now });
    // The IP is now over its limit: a user with a full allowance is still refused.
    expect(await checkRateLimit("email", { userId: "u-new", ip: "198.51.100.7" }, { nowMs: now })).toMatchObject({
      allowed: false,
      limit: 10,
      remaining: 0,
    });
  });

  it("an endpoint's X-RateLimit-* headers describe the tighter window, and 429 comes from either", async () => {
    const ip = "198.51.100.77";
    // 150 requests from this address by other users in this hour.
    for (let i = 0; i < 150; i++) await checkRateLimit("api", { userId: `other-${i}`, ip });
    const { cookie } = await signIn("tighter@example.com");
    const res = await call(userStatus, { path: "/api/user/status", cookie, headers: { "x-forwarded-for": `10.0.0.1, ${ip}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBe("200");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("49");
    // From another address the user's own window (99 left) is the tighter one.
    const other = await call(userStatus, { path: "/api/user/status", cookie, headers: { "x-forwarded-for": "203.0.113.50" } });
    expect(other.headers.get("x-ratelimit-limit")).toBe("100");
    expect(other.headers.get("x-ratelimit-remaining")).toBe("98");
    for (let i = 0; i < 49; i++) await checkRateLimit("api", { userId: `more-${i}`, ip });
    const refused = await call(userStatus, { path: "/api/user/status", cookie, headers: { "x-forwarded-for": ip } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-ratelimit-limit")).toBe("200");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("limits per IP only, or per user only, where the category says so", async () => {
    const now = at(7);
    for (let i = 0; i < 3; i++)
      expect((await checkRateLimit("contact", { userId: `c${i}`, ip: "192.0.2.9" }, { nowMs: now }))?.allowed).toBe(true);
    expect(await checkRateLimit("contact", { userId: "c9", ip: "192.0.2.9" }, { nowMs: now })).toMatchObject({ allowed: false, limit: 3 });
    expect(await checkRateLimit("payments", { ip: "192.0.2.9" }, { nowMs: now })).toBeNull();
    expect(await checkRateLimit("payments", { userId: "p1", ip: "192.0.2.9" }, { nowMs: now })).toMatchObject({ limit: 20, remaining: 19 });
  });

  it("uses one atomic upsert per check: concurrent checks never lose a count", async () => {
    const now = at(9);
    const results = await Promise.all(Array.from({ length: 30 }, () => checkRateLimit("payments", { userId: "u-conc" }, { nowMs: now })));
    expect(results.filter((r) => r?.allowed)).toHaveLength(20);
    expect(results.map((r) => r?.remaining).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([
      ...Array(11).fill(0),
      ...Array.from({ length: 19 }, (_, i) => i + 1),
    ]);
    // The embedded database's windows are this process's (lib/ratelimit/process-windows.ts): no write
    // per check. PostgreSQL's upsert is tested in tests/pg/rate-limit-windows.test.ts.
    const prisma = await db();
    expect(await prisma.rateLimitWindow.count({ where: { key: "payments:user:u-conc" } })).toBe(0);
    expect(await checkRateLimit("payments", { userId: "u-conc" }, { nowMs: now })).toMatchObject({ allowed: false, remaining: 0 });
    // The next window counts afresh.
    expect(await checkRateLimit("payments", { userId: "u-conc" }, { nowMs: at(10) })).toMatchObject({ allowed: true, remaining: 19 });
  });

  it("is off when RATE_LIMIT_ENABLED=false (outside production)", async () => {
    const restore = setEnv({ RATE_LIMIT_ENABLED: "false" });
    try {
      expect(await checkRateLimit("api", { userId: "off", ip: "192.0.2.1" })).toBeNull();
    } finally {
      restore();
    }
  });
});

describe("fail-open when the store is unavailable", () => {
  const reset = async () => {
    throw new Error("connection reset by peer");
  };
  const throwing: RateLimitStore = { name: "throwing", hit: reset, acquireSlot: reset, releaseSlot: reset, renewSlots: reset };
  const never = () => new Promise<never>(() => undefined);
  const hanging: RateLimitStore = { name: "hanging", hit: never, acquireSlot: never, releaseSlot: never, renewSlots: never };

  it("lets the request pass and logs a warning when the store throws: once when it goes down, not on every request", async () => {
    expect(await checkRateLimit("api", { userId: "u1", ip: "192.0.2.2" }, { store: throwing })).toBeNull();
    const down = expect.objectContaining({
      msg: "dependency unavailable",
      dependency: "rate-limit store (throwing)",
      store: "throwing",
      error: "connection reset by peer",
      effect: "requests are allowed without a limit",
    });
    expect(warnings).toEqual([down]);
    expect(await checkRateLimit("api", { userId: "u2", ip: "192.0.2.3" }, { store: throwing })).toBeNull();
    expect(warnings).toEqual([down]);
  });

  it("lets the request pass and logs a warning when the store does not answer in time (about 1 s)", async () => {
    const restore = setEnv({ RATE_LIMIT_TIMEOUT_MS: "100" });
    try {
      const started = Date.now();
      expect(await checkRateLimit("api", { userId: "u1" }, { store: hanging })).toBeNull();
      expect(Date.now() - started).toBeLessThan(1000);
      expect(warnings[0]).toMatchObject({ store: "hanging", error: expect.stringMatching(/timed out/) });
    } finally {
      restore();
    }
  });

  it("an endpoint answers 200 without rate-limit headers when the configured store is down", async () => {
    // Upstash configured at a closed port: every check fails, every request passes.
    const restore = setEnv({ UPSTASH_REDIS_REST_URL: "http://127.0.0.1:9", UPSTASH_REDIS_REST_TOKEN: "t" });
    try {
      const { cookie } = await signIn("failopen@example.com");
      const res = await call(userStatus, { path: "/api/user/status", cookie });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBeNull();
      expect(warnings.some((w) => w.store === "upstash")).toBe(true);
    } finally {
      restore();
    }
  });

  it("an endpoint answers 200 when the configured store hangs past RATE_LIMIT_TIMEOUT_MS", async () => {
    const sockets = new Set<import("node:net").Socket>();
    const server: Server = createServer(() => undefined); // accepts, never answers
    server.on("connection", (s) => sockets.add(s));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const restore = setEnv({
      UPSTASH_REDIS_REST_URL: `http://127.0.0.1:${port}`,
      UPSTASH_REDIS_REST_TOKEN: "t",
      RATE_LIMIT_TIMEOUT_MS: "200",
    });
    try {
      const { cookie } = await signIn("hang@example.com");
      const before = await failOpenCount("upstash");
      const started = Date.now();
      const res = await call(userStatus, { path: "/api/user/status", cookie });
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(2000);
      // The store has been down since the test before: counted, not logged again.
      expect(await failOpenCount("upstash")).toBe(before + 1);
    } finally {
      restore();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("the database store is the default and is a real store", async () => {
    expect(databaseStore.name).toBe("database");
    const counts = await databaseStore.hit(
      [
        { key: "direct:a", limit: 2 },
        { key: "direct:b", limit: 3 },
      ],
      HOUR,
      at(11),
    );
    expect(counts).toEqual([
      { key: "direct:a", limit: 2, count: 1, resetMs: at(12) },
      { key: "direct:b", limit: 3, count: 1, resetMs: at(12) },
    ]);
  });
});

describe("per-IP limits a client cannot dodge (X-Forwarded-For)", () => {
  it("105 unsigned payment webhooks with rotating prepended addresses: the 101st is refused (webhooks: 100 per IP)", async () => {
    const { POST: paymentWebhook } = await import("@/app/api/webhooks/payment/route");
    const statuses: number[] = [];
    for (let i = 0; i < 105; i++) {
      const res = await call(paymentWebhook, {
        method: "POST",
        path: "/api/webhooks/payment",
        body: { meta: { event_name: "order_created" } },
        headers: { "x-forwarded-for": `10.${i % 250}.${i}.1, 198.51.100.77` },
      });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 100).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(100)).toEqual([429, 429, 429, 429, 429]);
  });
});

describe("the embedded database's windows (process memory)", () => {
  it("a flood of new addresses is bounded: past 200,000 counters the oldest go first, and a current one keeps counting", async () => {
    const { hitProcessWindows } = await import("@/lib/ratelimit/process-windows");
    const now = at(11);
    expect(hitProcessWindows([{ key: "flood:kept", limit: 5 }], HOUR, now)[0].count).toBe(1);
    for (let i = 0; i < 200_001; i++) hitProcessWindows([{ key: `flood:${i}`, limit: 5 }], HOUR, now);
    // The first counters of the flood were dropped (a fresh count), the latest kept.
    expect(hitProcessWindows([{ key: "flood:0", limit: 5 }], HOUR, now)[0].count).toBe(1);
    expect(hitProcessWindows([{ key: "flood:200000", limit: 5 }], HOUR, now)[0].count).toBe(2);
    // The next hour counts afresh.
    expect(hitProcessWindows([{ key: "flood:200000", limit: 5 }], HOUR, at(12))[0]).toMatchObject({ count: 1, resetMs: at(13) });
  });
});
