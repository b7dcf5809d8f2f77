import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET, POST } from "@/app/api/health/route";
import { closeDb, db } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call } from "@/tests/helpers/http";

afterAll(closeDb);
// The server opens (and migrates) the embedded database at start-up, before its first health check;
// opening it can take longer than the check's 3 s database timeout on a busy machine.
beforeAll(async () => {
  await db();
}, 60_000);

const NEVER_CACHED = "no-cache, no-store, must-revalidate";

describe("GET /api/health", () => {
  it("answers 200 with database connected and memory ok, never cached", async () => {
    const res = await call(GET, { path: "/api/health" });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe(NEVER_CACHED);
    expect(res.body).toMatchObject({ status: "healthy", environment: "test", checks: { database: "connected", memory: "ok" } });
    expect(res.body.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(new Date(res.body.timestamp).toISOString()).toBe(res.body.timestamp);
    expect(res.body.responseTime).toMatch(/^\d+ms$/);
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("reports APP_VERSION when set", async () => {
    const restore = setEnv({ APP_VERSION: "9.8.7-test" });
    try {
      expect((await call(GET, { path: "/api/health" })).body.version).toBe("9.8.7-test");
    } finally {
      restore();
    }
  });

  it("answers 503 (same body shape, never cached) when the database is unreachable, and recovers", async () => {
    await closeDb();
    // A PostgreSQL URL on a closed port: the pool's connection attempt is refused.
    const restore = setEnv({ DATABASE_URL: "postgresql://nobody@127.0.0.1:9/none?connect_timeout=2" });
    try {
      const res = await call(GET, { path: "/api/health" });
      expect(res.status).toBe(503);
      expect(res.headers.get("cache-control")).toBe(NEVER_CACHED);
      expect(res.body).toMatchObject({ status: "unhealthy", checks: { database: "disconnected", memory: "ok" } });
      expect(Object.keys(res.body).sort()).toEqual(["checks", "environment", "responseTime", "status", "timestamp", "version"]);
      expect(res.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|nobody/);
    } finally {
      await closeDb();
      restore();
    }
    // Recovered once the database is open again (opening and migrating the embedded one may take
    // longer than the health check's 3 s on a loaded machine: wait for it, not for a time).
    await db();
    expect((await call(GET, { path: "/api/health" })).status).toBe(200);
  });

  it("answers 405 for other methods", async () => {
    const res = await call(POST, { method: "POST", path: "/api/health" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET");
  });
});
