import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import * as bonusPackages from "@/app/api/credits/bonus-packages/route";
import * as creditsCheckout from "@/app/api/credits/checkout/route";
import * as preferences from "@/app/api/credits/preferences/route";
import * as cancel from "@/app/api/payments/cancel-subscription/route";
import * as changePlan from "@/app/api/payments/change-plan/route";
import * as createCheckout from "@/app/api/payments/create-checkout/route";
import * as customerPortal from "@/app/api/payments/customer-portal/route";
import * as emailWebhook from "@/app/api/webhooks/email/route";
import * as identityWebhook from "@/app/api/webhooks/identity/route";
import * as paymentWebhook from "@/app/api/webhooks/payment/route";
import * as stripeWebhook from "@/app/api/webhooks/stripe/route";
import Stripe from "stripe";
import { DEV_STRIPE_WEBHOOK_SECRET } from "@/lib/billing/payment-provider/stripe-client";
import { closeDb, db } from "@/lib/db/client";
import type { NextRouteHandler } from "@/lib/http/route";
import { checkRateLimit, RATE_LIMIT_CATEGORIES, type RateLimitCategory } from "@/lib/ratelimit";
import { call, signIn, type CallOptions, type CallResult } from "@/tests/helpers/http";
import { orderEvent, sign } from "@/tests/integration/billing/fixtures";
import { svixHeaders } from "@/tests/helpers/svix";

afterAll(closeDb);

/**
 * 429 for the endpoints whose rate limit no other test drives to the end. The window is filled up to
 * one below the limit through the real limiter (the same store and keys the wrapper uses); the
 * endpoint's own request then takes the last slot (so it is counted in the right category), and the
 * next one is refused.
 */
async function fill(category: RateLimitCategory, subject: { userId?: string; ip?: string }, count: number) {
  for (let i = 0; i < count; i++) await checkRateLimit(category, subject);
}

function expect429(res: CallResult, limit: number) {
  expect(res.status).toBe(429);
  expect(res.body.error).toMatch(/^Rate limit exceeded; retry after \d+ seconds$/);
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(res.headers.get("x-ratelimit-limit")).toBe(String(limit));
  expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
  expect(res.headers.get("cache-control")).toBe("no-store");
}

type Case = [name: string, handler: NextRouteHandler, category: RateLimitCategory, options: (cookie: string) => CallOptions];

async function runUserCase(handler: NextRouteHandler, category: RateLimitCategory, options: (cookie: string) => CallOptions) {
  const limit = RATE_LIMIT_CATEGORIES[category].perUser as number;
  const { user, cookie } = await signIn();
  await fill(category, { userId: user.id }, limit - 1);
  const last = await call(handler, options(cookie));
  expect(last.status).not.toBe(429);
  expect(last.headers.get("x-ratelimit-limit")).toBe(String(limit));
  expect(last.headers.get("x-ratelimit-remaining")).toBe("0");
  expect429(await call(handler, options(cookie)), limit);
  return { user, cookie };
}

describe("429 listed in SPEC §4", () => {
  const listed: Case[] = [
    ["GET /api/credits/bonus-packages (api, 100/user)", bonusPackages.GET, "api", (cookie) => ({ path: "/api/credits/bonus-packages", cookie })],
    ["POST /api/credits/checkout (payments, 20/user)", creditsCheckout.POST, "payments", (cookie) => ({ path: "/api/credits/checkout", cookie, body: { variantId: "local-bonus-basic-500" } })],
  ];
  it.each(listed)("%s", async (_name, handler, category, options) => {
    await runUserCase(handler, category, options);
  });

  it("PATCH /api/credits/preferences (api, 100/user): refused before the handler, the preference is unchanged", async () => {
    const { user, cookie } = await runUserCase(preferences.PATCH, "api", (cookie) => ({ method: "PATCH", path: "/api/credits/preferences", cookie, body: { bonusCreditsAutoUse: false } }));
    const refused = await call(preferences.PATCH, { method: "PATCH", path: "/api/credits/preferences", cookie, body: { bonusCreditsAutoUse: true } });
    expect(refused.status).toBe(429);
    expect((await (await db()).user.findUniqueOrThrow({ where: { id: user.id } })).bonusCreditsAutoUse).toBe(false);
  });
});

describe("429 implied by SPEC §4's preamble for endpoints with a §8 category (not in their error lists)", () => {
  const implied: Case[] = [
    ["POST /api/payments/create-checkout (payments)", createCheckout.POST, "payments", (cookie) => ({ path: "/api/payments/create-checkout", cookie, body: { variantId: "local-basic-monthly" } })],
    ["POST /api/payments/cancel-subscription (payments)", cancel.POST, "payments", (cookie) => ({ method: "POST", path: "/api/payments/cancel-subscription", cookie })],
    ["POST /api/payments/change-plan (payments)", changePlan.POST, "payments", (cookie) => ({ path: "/api/payments/change-plan", cookie, body: { newVariantId: "local-pro-monthly" } })],
    ["POST /api/payments/customer-portal (payments)", customerPortal.POST, "payments", (cookie) => ({ method: "POST", path: "/api/payments/customer-portal", cookie })],
  ];
  it.each(implied)("%s", async (_name, handler, category, options) => {
    await runUserCase(handler, category, options);
  });

  it("webhooks (100/IP) count only failed verifications: 150 forged requests, then signed events on every webhook route are processed", async () => {
    const { user } = await signIn(`busy-hour-${randomUUID()}@example.com`);
    const ip = "198.51.100.201";
    const headers = (extra: Record<string, string>) => ({ "content-type": "application/json", "x-forwarded-for": ip, ...extra });
    const pay = (raw: string, extra: Record<string, string> = {}) =>
      call(paymentWebhook.POST, { method: "POST", path: "/api/webhooks/payment", rawBody: raw, headers: headers(extra) });
    const identity = (raw: string, extra: Record<string, string>) =>
      call(identityWebhook.POST, { method: "POST", path: "/api/webhooks/identity", rawBody: raw, headers: headers(extra) });
    const email = (raw: string, extra: Record<string, string>) =>
      call(emailWebhook.POST, { method: "POST", path: "/api/webhooks/email", rawBody: raw, headers: headers(extra) });
    const stripe = (raw: string, extra: Record<string, string>) =>
      call(stripeWebhook.POST, { method: "POST", path: "/api/webhooks/stripe", rawBody: raw, headers: headers(extra) });

    // 150 forgeries from one address: unsigned, wrongly signed, missing svix headers, stale svix timestamps, forged Stripe signatures.
    const statuses: number[] = [];
    for (let i = 0; i < 150; i++) {
      const raw = `{"n":${i}}`;
      const kind = i % 5;
      const res =
        kind === 0
          ? await pay(raw)
          : kind === 1
            ? await pay(raw, { "x-signature": "0".repeat(64) })
            : kind === 2
              ? await identity(raw, { "svix-id": `msg_${i}` })
              : kind === 3
                ? await email(raw, svixHeaders(process.env.EMAIL_WEBHOOK_SECRET as string, raw, { at: new Date(Date.now() - 3_600_000) }))
                : await stripe(raw, { "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload: raw, secret: "whsec_forged" }) });
      statuses.push(res.status);
      if (i === 0) expect(res.headers.get("x-ratelimit-remaining")).toBe("99");
      if (i >= 100) expect429(res, 100);
    }
    expect(statuses.slice(0, 100).every((s) => s === 401 || s === 400)).toBe(true);
    expect(statuses.slice(0, 100)).toContain(400); // the missing svix headers
    expect(statuses.filter((s) => s === 429)).toHaveLength(50);

    // Correctly signed events from the same address: processed, never counted (no rate headers).
    const order = JSON.stringify(orderEvent({ id: `ord-rl-${user.id}`, userId: user.id, variantId: "local-bonus-basic-500" }));
    const paid = await pay(order, { "x-signature": sign(order) });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ received: true, status: "processed" });
    expect(paid.headers.get("x-ratelimit-limit")).toBeNull();
    expect(await (await db()).bonusPurchase.count({ where: { userId: user.id } })).toBe(1);

    const clerkId = `user_rl_${randomUUID()}`;
    const created = JSON.stringify({
      type: "user.created",
      data: { id: clerkId, email_addresses: [{ id: "idn_1", email_address: `${clerkId}@example.com` }], primary_email_address_id: "idn_1" },
    });
    const identified = await identity(created, svixHeaders(process.env.IDENTITY_WEBHOOK_SECRET as string, created));
    expect(identified.status).toBe(200);
    expect(await (await db()).user.count({ where: { externalId: clerkId } })).toBe(1);

    const bounced = JSON.stringify({ type: "email.delivered", created_at: new Date().toISOString(), data: { email_id: randomUUID(), from: "App <no-reply@app.test>", to: ["user@example.com"], subject: "Hi", created_at: new Date().toISOString() },
    });
    const mailed = await email(bounced, svixHeaders(process.env.EMAIL_WEBHOOK_SECRET as string, bounced));
    expect(mailed.status).toBe(200);

    const event = JSON.stringify({ id: `evt_rl_${randomUUID()}`, object: "event", type: "customer.created", created: Math.floor(Date.now() / 1000), data: { object: { id: "cus_rl" } } });
    const striped = await stripe(event, { "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload: event, secret: DEV_STRIPE_WEBHOOK_SECRET }) });
    expect(striped.status).toBe(200);
    expect(striped.body).toMatchObject({ received: true, status: "ignored" });

    // And the forgeries are still refused.
    expect429(await pay("{}"), 100);
  });
});
