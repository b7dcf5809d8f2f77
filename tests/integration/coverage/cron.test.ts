import { afterAll, afterEach, describe, expect, it } from "vitest";
import * as checkTrials from "@/app/api/cron/check-trials/route";
import { closeDb, db } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";

afterAll(closeDb);
let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

const PATH = "/api/cron/check-trials";
const SECRET = "coverage-cron-secret-0123456789";

/** A classic_saas trial past its end date: what the job would expire. */
async function expiredTrial() {
  const { user } = await signIn();
  const prisma = await db();
  await prisma.subscription.create({
    data: {
      userId: user.id,
      providerSubscriptionId: `sub-trial-${user.id}`,
      status: "on_trial",
      tier: "pro",
      variantId: "local-pro-monthly",
      trialEndsAt: new Date(Date.now() - 60_000),
      currentPeriodEnd: new Date(Date.now() - 60_000),
      provider: "simulator",
    },
  });
  return async () => (await prisma.subscription.findFirstOrThrow({ where: { userId: user.id } })).status;
}

describe("POST /api/cron/check-trials: bearer token required in production (SPEC §5)", () => {
  it("answers 401 without the bearer or with a wrong one, and expires nothing", async () => {
    restore = setEnv({ APP_ENV: "production", CRON_SECRET: SECRET, PUBLIC_PRICING_MODEL: "classic_saas" });
    const statusOf = await expiredTrial();
    for (const headers of [{}, { authorization: "Bearer wrong" }, { authorization: SECRET }] as Record<string, string>[]) {
      const res = await call(checkTrials.POST, { method: "POST", path: PATH, headers });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: "Invalid or missing cron bearer token", code: "unauthorized" });
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
    expect(await statusOf()).toBe("on_trial");
    // GET without the bearer only reports the configuration (open, runs nothing).
    const get = await call(checkTrials.GET, { path: PATH, headers: { authorization: "Bearer wrong" } });
    expect(get.status).toBe(200);
    expect(get.body).toEqual({ status: "active", schedule: "0 2 * * *", model: "classic_saas" });
    expect(await statusOf()).toBe("on_trial");
    // The bearer runs it.
    const ok = await call(checkTrials.POST, { method: "POST", path: PATH, headers: { authorization: `Bearer ${SECRET}` } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ success: true, expiredCount: 1 });
    expect(await statusOf()).toBe("expired");
  });
});
