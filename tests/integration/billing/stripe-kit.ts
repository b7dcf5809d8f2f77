import Stripe from "stripe";
import { expect } from "vitest";
import * as creditsCheckout from "@/app/api/credits/checkout/route";
import * as createCheckout from "@/app/api/payments/create-checkout/route";
import * as stripeWebhook from "@/app/api/webhooks/stripe/route";
import { db } from "@/lib/db/client";
import type { Subscription } from "@/lib/generated/prisma/client";
import { startStripeSimulator, type StripeSimulator } from "@/lib/simulator/stripe/stripe-simulator";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { serveRoute } from "@/tests/helpers/route-server";

export const STRIPE_TEST_KEY = "sk_test_integration";
export const STRIPE_TEST_SECRET = "whsec_integration_secret";

/**
 * Stripe for tests that run our routes in-process: the local Stripe simulator over HTTP (our code
 * reaches it through the official package), its webhooks sent to /api/webhooks/stripe behind a real
 * listener, and the settings that make Stripe the provider.
 */
export interface StripeKit {
  simulator: StripeSimulator;
  /** The official package pointed at the simulator (what a test does as "Stripe's side"). */
  stripe: Stripe;
  /** While true, the simulator's webhooks go nowhere (an endpoint that was down). */
  setWebhooksLost(lost: boolean): void;
  /** Opens a checkout page and pays it; answers where it redirected. */
  pay(checkoutUrl: string): Promise<string>;
  subscribedToBasic(email: string): Promise<{ user: { id: string; email: string | null }; cookie: string; sub: Subscription }>;
  /** Buys the basic tier's 500-credit pack through our checkout route (the card is saved). */
  buyPack(cookie: string): Promise<void>;
  /** A control call to the simulator (renew, fail, disputes, a customer's card). */
  control(path: string, params?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

export async function startStripeKit(extraEnv: Record<string, string> = {}): Promise<StripeKit> {
  let lost = false;
  const webhook = await serveRoute(stripeWebhook.POST);
  const simulator = await startStripeSimulator({
    apiKey: STRIPE_TEST_KEY,
    webhookSecret: STRIPE_TEST_SECRET,
    webhookUrl: () => (lost ? "http://127.0.0.1:9/down" : `${webhook.url}/api/webhooks/stripe`),
  });
  const restore = setEnv({
    PAYMENT_PROVIDER: "stripe",
    STRIPE_SECRET_KEY: STRIPE_TEST_KEY,
    STRIPE_WEBHOOK_SECRET: STRIPE_TEST_SECRET,
    STRIPE_API_BASE: simulator.url,
    RATE_LIMIT_ENABLED: "false",
    ...extraEnv,
  });
  const base = new URL(simulator.url);
  const stripe = new Stripe(STRIPE_TEST_KEY, { host: base.hostname, port: Number(base.port), protocol: "http", telemetry: false });

  const pay = async (checkoutUrl: string) => {
    expect(checkoutUrl.startsWith(`${simulator.url}/checkout/cs_test_`)).toBe(true);
    const page = await fetch(checkoutUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Stripe simulator");
    const paid = await fetch(`${checkoutUrl}/pay`, { method: "POST", redirect: "manual" });
    expect(paid.status).toBe(303);
    return paid.headers.get("location") ?? "";
  };

  return {
    simulator,
    stripe,
    setWebhooksLost: (value) => {
      lost = value;
    },
    pay,
    async subscribedToBasic(email) {
      const { user, cookie } = await signIn(email);
      const res = await call(createCheckout.POST, {
        path: "/api/payments/create-checkout",
        cookie,
        body: { variantId: "local-basic-monthly" },
      });
      expect(res.status).toBe(200);
      const landed = await pay(res.body.checkoutUrl);
      expect(landed).toBe("http://localhost:3000/dashboard?checkout=success");
      const sub = await (await db()).subscription.findFirstOrThrow({ where: { userId: user.id } });
      return { user, cookie, sub };
    },
    async buyPack(cookie) {
      const res = await call(creditsCheckout.POST, { path: "/api/credits/checkout", cookie, body: { variantId: "local-bonus-basic-500" } });
      expect(res.status).toBe(200);
      await pay(res.body.checkoutUrl);
    },
    control: (path, params = {}) =>
      fetch(`${simulator.url}/_simulator/${path}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(params),
      }),
    async close() {
      restore();
      await simulator.close();
      await webhook.close();
    },
  };
}

/** An account's balance as the ledger must tell it: buckets less the debt, and the ledger's sum. */
export async function balanceOf(userId: string) {
  const prisma = await db();
  const balance = await prisma.creditBalance.findUniqueOrThrow({ where: { userId } });
  const held = (await prisma.bonusPurchase.findMany({ where: { userId, expiresAt: { gt: new Date() } } })).reduce(
    (s, p) => s + p.remaining,
    0,
  );
  const rows = await prisma.creditTransaction.findMany({ where: { userId } });
  return {
    subscription: balance.subscriptionCredits,
    held,
    debt: balance.debt,
    total: balance.subscriptionCredits + held - balance.debt,
    ledger: rows.reduce((s, r) => s + r.amount, 0),
  };
}
