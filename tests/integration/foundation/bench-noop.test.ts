import { describe, expect, it } from "vitest";
import { GET } from "@/app/api/bench/noop/route";
import { setEnv } from "@/tests/helpers/env";
import { call } from "@/tests/helpers/http";

describe("GET /api/bench/noop", () => {
  it("answers outside production", async () => {
    const res = await call(GET, { path: "/api/bench/noop" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
  });

  it("is 404 in production unless BENCH_ROUTES=true", async () => {
    const restore = setEnv({ APP_ENV: "production", CRON_SECRET: "c" });
    try {
      expect((await call(GET, { path: "/api/bench/noop" })).status).toBe(404);
      process.env.BENCH_ROUTES = "true";
      expect((await call(GET, { path: "/api/bench/noop" })).status).toBe(200);
    } finally {
      delete process.env.BENCH_ROUTES;
      restore();
    }
  });
});
