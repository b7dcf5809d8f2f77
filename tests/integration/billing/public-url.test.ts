import { afterAll, describe, expect, it } from "vitest";
import { POST as createCheckout } from "@/app/api/payments/create-checkout/route";
import { closeDb } from "@/lib/db/client";
import { publicRequestUrl } from "@/lib/config/public-url";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";

afterAll(closeDb);

describe("checkout addresses follow the address the browser used", () => {
  it("builds the simulator checkout and its return address on the Host the client called (next builds req.url on localhost)", async () => {
    const restore = setEnv({ NEXTAUTH_URL: undefined });
    const { cookie } = await signIn();
    const { body: plans } = await call((await import("@/app/api/pricing/config/route")).GET, { path: "/api/pricing/config" });
    const variantId = String(plans.tiers.find((t: { key: string }) => t.key === "basic").variants.monthly);
    const res = await call(createCheckout, {
      path: "/api/payments/create-checkout",
      cookie,
      body: { variantId },
      headers: { host: "127.0.0.1:3000" },
    });
    expect(res.status).toBe(200);
    expect(res.body.checkoutUrl).toMatch(/^http:\/\/127\.0\.0\.1:3000\/simulator\/checkout\//);
    restore();
  });

  it("ignores a malformed Host, and in production keeps req.url (set NEXTAUTH_URL there)", () => {
    const req = (host: string) => new Request("http://localhost:3000/api/x?a=1", { headers: { host } });
    expect(publicRequestUrl(req("192.168.1.20:3000"))).toBe("http://192.168.1.20:3000/api/x?a=1");
    expect(publicRequestUrl(req("[::1]:3000"))).toBe("http://[::1]:3000/api/x?a=1");
    expect(publicRequestUrl(req("evil.example/path"))).toBe("http://localhost:3000/api/x?a=1");
    const restore = setEnv({ APP_ENV: "production", CRON_SECRET: "cron-secret-for-this-test" });
    try {
      expect(publicRequestUrl(req("attacker.example"))).toBe("http://localhost:3000/api/x?a=1");
    } finally {
      restore();
    }
  });
});
