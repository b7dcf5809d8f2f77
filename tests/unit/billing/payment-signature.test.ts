import { describe, expect, it } from "vitest";
import { comparePlans, tierRank } from "@/lib/billing/subscriptions/tier-rank";
import { signSimulatorToken, verifySimulatorToken } from "@/lib/billing/payment-provider/simulator-token";
import { sameOriginUrl } from "@/lib/config/public-url";
import { isAppError } from "@/lib/errors";
import { signPaymentBody, verifyPaymentSignature } from "@/lib/webhooks/payment/signature";

function code(fn: () => void): string | null {
  try {
    fn();
    return null;
  } catch (error) {
    return isAppError(error) ? error.code : "other";
  }
}

describe("verifyPaymentSignature (Lemon Squeezy X-Signature)", () => {
  const body = '{"meta":{"event_name":"order_created"}}';
  const good = signPaymentBody(body, "s3cret");

  it("accepts the hex HMAC-SHA256 of the raw body, in either case", () => {
    expect(good).toMatch(/^[0-9a-f]{64}$/);
    expect(code(() => verifyPaymentSignature(body, good, "s3cret"))).toBeNull();
    expect(code(() => verifyPaymentSignature(body, good.toUpperCase(), "s3cret"))).toBeNull();
  });

  it("refuses missing, malformed, wrong and unconfigured as invalid_signature (401), never throwing anything else", () => {
    for (const [sig, secret, raw] of [
      [null, "s3cret", body],
      ["", "s3cret", body],
      ["zz".repeat(32), "s3cret", body],
      [good.slice(2), "s3cret", body],
      [good + "00", "s3cret", body],
      [good, "other", body],
      [good, "s3cret", body + "\n"],
      [good, undefined, body],
    ] as const) {
      expect(code(() => verifyPaymentSignature(raw, sig, secret))).toBe("invalid_signature");
    }
  });
});

describe("plan comparison", () => {
  it("orders tiers and treats yearly as an upgrade of monthly", () => {
    expect(tierRank("free")).toBeLessThan(tierRank("basic"));
    expect(comparePlans("local-pro-monthly", "local-basic-monthly")).toBeLessThan(0);
    expect(comparePlans("local-basic-yearly", "local-pro-monthly")).toBeGreaterThan(0);
    expect(comparePlans("local-pro-yearly", "local-pro-monthly")).toBeLessThan(0);
    expect(comparePlans("local-pro-monthly", "local-pro-yearly")).toBeGreaterThan(0);
    expect(comparePlans("local-pro-monthly", "local-pro-monthly")).toBe(0);
  });
});

describe("simulator tokens and return addresses", () => {
  it("round-trips, and refuses forged, altered and expired tokens", () => {
    const token = signSimulatorToken({ sub: "s1", uid: "u1" }, 60);
    expect(verifySimulatorToken(token)).toMatchObject({ sub: "s1", uid: "u1" });
    const [body, mac] = token.split(".");
    const altered = Buffer.from(JSON.stringify({ sub: "s1", uid: "u2", exp: 9e9 })).toString("base64url");
    expect(verifySimulatorToken(`${altered}.${mac}`)).toBeNull();
    expect(verifySimulatorToken(`${body}.${mac.slice(1)}x`)).toBeNull();
    expect(verifySimulatorToken("garbage")).toBeNull();
    expect(verifySimulatorToken(token, Date.now() + 61_000)).toBeNull();
  });

  it("accepts only paths and same-origin addresses as return URLs", () => {
    const base = "http://localhost:3000";
    expect(sameOriginUrl("/dashboard?x=1", base)).toBe("http://localhost:3000/dashboard?x=1");
    expect(sameOriginUrl("http://localhost:3000/a", base)).toBe("http://localhost:3000/a");
    expect(sameOriginUrl("https://evil.example/a", base)).toBeNull();
    expect(sameOriginUrl("//evil.example/a", base)).toBeNull();
  });
});
