import { describe, expect, it } from "vitest";
import { configurationProblems } from "@/lib/server/check-configuration";

/** A production configuration that starts (the base each case breaks). */
const good = {
  APP_ENV: "production",
  PAYMENTS_ENABLED: "false",
  NEXTAUTH_SECRET: "n".repeat(40),
  CRON_SECRET: "c".repeat(40),
  ALLOW_EMBEDDED_DATABASE: "true",
  OPENAI_API_KEY: "sk-test",
  RESEND_API_KEY: "re_test",
  NEXTAUTH_URL: "https://app.example.com",
};

describe("the one configuration check at start-up", () => {
  it("passes a complete production configuration", () => {
    expect(configurationProblems(good)).toEqual([]);
  });

  it("needs a payment provider in production unless payments are switched off: Stripe, Lemon Squeezy, or the simulator with its secret", () => {
    const { PAYMENTS_ENABLED: _off, ...paymentsOn } = good;
    expect(configurationProblems(paymentsOn)).toEqual([
      expect.stringMatching(
        /^Payments: production needs a payment provider\. Either Stripe: PAYMENT_PROVIDER=stripe with STRIPE_SECRET_KEY .* and STRIPE_WEBHOOK_SECRET .*; or Lemon Squeezy: LEMONSQUEEZY_API_KEY .*LEMONSQUEEZY_STORE_ID \(e\.g\. 12345\) and PAYMENT_WEBHOOK_SECRET .*PAYMENT_SIMULATOR_ENABLED=true with PAYMENT_WEBHOOK_SECRET.*PAYMENTS_ENABLED=false/,
      ),
    ]);
    expect(configurationProblems({ ...paymentsOn, PAYMENT_SIMULATOR_ENABLED: "true" })).toEqual([
      expect.stringMatching(/^PAYMENT_WEBHOOK_SECRET: required in production for the checkout simulator/),
    ]);
    expect(configurationProblems({ ...paymentsOn, PAYMENT_SIMULATOR_ENABLED: "true", PAYMENT_WEBHOOK_SECRET: "s" })).toEqual([]);
    // Outside production the simulator stands in: nothing to set.
    expect(configurationProblems({ ...paymentsOn, APP_ENV: "development" })).toEqual([]);
    // Stripe: its key and webhook secret, each named; its price ids when it is the real Stripe; one provider at a time.
    expect(configurationProblems({ ...paymentsOn, PAYMENT_PROVIDER: "stripe" })).toEqual([
      expect.stringMatching(/^STRIPE_SECRET_KEY: required in production with PAYMENT_PROVIDER=stripe/),
      expect.stringMatching(
        /^STRIPE_WEBHOOK_SECRET: required in production with PAYMENT_PROVIDER=stripe, the signing secret of the webhook endpoint \/api\/webhooks\/stripe/,
      ),
    ]);
    const stripe = { ...paymentsOn, PAYMENT_PROVIDER: "stripe", STRIPE_SECRET_KEY: "sk_live_x", STRIPE_WEBHOOK_SECRET: "whsec_x" };
    expect(configurationProblems(stripe)).toEqual([
      expect.stringMatching(/^PRICING_CONFIG: Stripe needs the account's own price ids for tiers\.basic\.variants\.monthly/),
    ]);
    expect(configurationProblems({ ...stripe, STRIPE_API_BASE: "http://127.0.0.1:12111" })).toEqual([]);
    expect(
      configurationProblems({
        ...stripe,
        STRIPE_API_BASE: "http://127.0.0.1:12111",
        LEMONSQUEEZY_API_KEY: "k",
        LEMONSQUEEZY_STORE_ID: "1",
      }),
    ).toContainEqual(expect.stringMatching(/^PAYMENT_PROVIDER=stripe and LEMONSQUEEZY_API_KEY: one provider sells at a time/));
    expect(configurationProblems({ ...paymentsOn, PAYMENT_PROVIDER: "paypal" })).toContainEqual(
      expect.stringMatching(/^PAYMENT_PROVIDER: /),
    );
  });

  it("reports AI settings of the wrong shape at start, named after the setting and the field (their shapes live in lib/ai)", () => {
    expect(
      configurationProblems({ ...good, AI_MODELS: JSON.stringify({ "my-model": { kind: "chat", perMillionTokens: { input: -1 } } }) }),
    ).toContainEqual(expect.stringMatching(/^AI_MODELS: my-model\.perMillionTokens\.input: /));
    expect(configurationProblems({ ...good, AI_ROUTES: JSON.stringify({ "gpt-4o": [] }) })).toContainEqual(
      "AI_ROUTES: gpt-4o: needs at least one route",
    );
    expect(configurationProblems({ ...good, AI_PROVIDERS: JSON.stringify({ "Bad Name": { type: "openai-compatible" } }) })).toContainEqual(
      expect.stringMatching(/^AI_PROVIDERS: /),
    );
    expect(configurationProblems({ ...good, AI_MODELS: "{not json" })).toContainEqual("AI_MODELS: is not valid JSON");
  });

  it("requires NEXTAUTH_URL wherever sign-in links are mailed (links never follow a request's Host header)", () => {
    const { NEXTAUTH_URL: _url, ...withoutUrl } = good;
    expect(configurationProblems(withoutUrl)).toEqual([expect.stringMatching(/^NEXTAUTH_URL: required for sign-in by emailed link/)]);
    expect(configurationProblems({ ...withoutUrl, AUTH_EMAIL_LOGIN: "false", AUTH_GITHUB_ID: "id", AUTH_GITHUB_SECRET: "s" })).toEqual([]);
  });

  it("lists every problem of several at once: invalid values, production rules, pairs, the pricing catalog, AI and sign-in", () => {
    const problems = configurationProblems({
      APP_ENV: "production",
      PAYMENTS_ENABLED: "false",
      NEXTAUTH_SECRET: "n".repeat(40),
      ALLOW_EMBEDDED_DATABASE: "true",
      PRICING_CONFIG: '{"tiers":{"gold":{}}}',
      ADMIN_API_TOKEN: "short",
      RATE_LIMIT_ENABLED: "false",
      LEMONSQUEEZY_API_KEY: "ls_test",
      AI_ALLOWED_MODELS: "gpt-4o-mini,no-such-model",
      AUTH_DEV_LOGIN: "true",
    });
    const text = problems.join("\n");
    for (const expected of [
      'PRICING_CONFIG: tiers: Unrecognized key: "gold"',
      "ADMIN_API_TOKEN: must be at least 32 characters",
      "CRON_SECRET: required in production",
      "RATE_LIMIT_ENABLED: cannot be false in production",
      "PAYMENT_WEBHOOK_SECRET: required when LEMONSQUEEZY_API_KEY is set",
      "LEMONSQUEEZY_STORE_ID: required when LEMONSQUEEZY_API_KEY is set",
      "AI provider: none is configured",
      '"no-such-model" is not in the model catalog',
      "AUTH_DEV_LOGIN: true lets anyone sign in",
      "Sign-in: no sign-in method is configured for production",
    ]) {
      expect(text, expected).toContain(expected);
    }
    // Names and problems only, never a value.
    expect(text).not.toContain("short\n");
  });

  it("says in one start everything a bare production start lacks, each with an example, and the closed-demo and operator-link ways in", () => {
    const problems = configurationProblems({ APP_ENV: "production" });
    const text = problems.join("\n");
    for (const name of [
      "NEXTAUTH_SECRET",
      "CRON_SECRET",
      "DATABASE_URL",
      "LEMONSQUEEZY_STORE_ID",
      "PAYMENT_WEBHOOK_SECRET",
      "PAYMENTS_ENABLED=false",
      "RESEND_API_KEY",
      "NEXTAUTH_URL",
      "AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION=true",
      "admin:sign-in-link",
      "AI provider",
    ]) {
      expect(text, name).toContain(name);
    }
    // Every "required" line shows the value's shape.
    for (const line of problems.filter((p) => /required in production/.test(p))) expect(line, line).toMatch(/e\.g\. /);
  });

  it("reads JSON settings at start: a PRICING_CONFIG that is not JSON, or of the wrong shape, stops the server", () => {
    expect(configurationProblems({ ...good, PRICING_CONFIG: "{bad" })).toEqual(["PRICING_CONFIG: is not valid JSON"]);
    expect(configurationProblems({ ...good, PRICING_CONFIG: '{"tiers":{"pro":{"monthlyPrice":"cheap"}}}' }).join()).toContain(
      "PRICING_CONFIG: tiers.pro.monthlyPrice",
    );
  });

  it("asks a real store for its own variant ids, and the development sign-in in production for its second switch", () => {
    const ls = configurationProblems({
      ...good,
      LEMONSQUEEZY_API_KEY: "ls",
      LEMONSQUEEZY_STORE_ID: "1",
      PAYMENT_WEBHOOK_SECRET: "p".repeat(20),
    });
    expect(ls.join()).toContain("PRICING_CONFIG: Lemon Squeezy needs the store's own variant ids for tiers.basic.variants.monthly");
    expect(configurationProblems({ ...good, AUTH_DEV_LOGIN: "true", AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION: "true" })).toEqual([]);
    expect(configurationProblems({ ...good, RESEND_API_KEY: "", AUTH_GITHUB_ID: "id", AUTH_GITHUB_SECRET: "s" })).toEqual([]);
  });
});
