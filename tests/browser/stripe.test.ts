import { afterAll, describe, expect, it } from "vitest";
import { startStripeSimulator } from "@/lib/simulator/stripe/stripe-simulator";
import { newPage, shot, signIn, useHarness, watchErrors } from "./harness";

/**
 * Stripe in a real browser (production build): the server sells through the official package against
 * the local Stripe simulator, whose checkout pages the browser pays on. Buy a plan and a pack, turn
 * auto-recharge on, spend under the threshold, and see the top-up and its receipt.
 */
const KEY = "sk_test_browser_stripe";
const SECRET = "whsec_browser_stripe_secret";
let appUrl = "";
const simulator = await startStripeSimulator({ apiKey: KEY, webhookSecret: SECRET, webhookUrl: () => `${appUrl}/api/webhooks/stripe` });
afterAll(() => simulator.close());

const h = useHarness({
  env: { PAYMENT_PROVIDER: "stripe", STRIPE_SECRET_KEY: KEY, STRIPE_WEBHOOK_SECRET: SECRET, STRIPE_API_BASE: simulator.url },
});

describe("Stripe checkout and auto-recharge (browser)", () => {
  it("buys a plan and a pack on Stripe's checkout, turns auto-recharge on, and sees the top-up with its receipt", async () => {
    appUrl = h.baseUrl;
    const { page } = await newPage(h);
    const errors: string[] = [];
    await watchErrors(page, errors);
    await signIn(page, `stripe-${Date.now().toString(36)}@example.com`);

    await page.goto("/dashboard/billing");
    await page.getByRole("button", { name: "Subscribe to Basic" }).click();
    await page.waitForURL((url) => url.origin === simulator.url);
    await page.getByRole("button", { name: /^Pay \$/ }).click();
    await page.waitForURL((url) => url.pathname === "/dashboard");

    await page.goto("/dashboard/credits");
    await page.getByTestId("bonus-package").first().getByRole("button").click();
    await page.waitForURL((url) => url.origin === simulator.url);
    await page.getByRole("button", { name: /^Pay \$/ }).click();
    await page.waitForURL((url) => url.pathname === "/dashboard/credits");

    const panel = page.getByTestId("auto-recharge");
    await panel.getByText("visa ending 4242").waitFor();
    await panel.getByTestId("recharge-enabled").check();
    await panel.getByTestId("recharge-threshold").fill("1490");
    // The save's answer before the chat: a chat charged before the settings land crosses nothing.
    const saved = page.waitForResponse((r) => r.url().endsWith("/api/credits/auto-recharge") && r.request().method() === "PUT");
    await panel.getByTestId("recharge-save").click();
    expect((await saved).status()).toBe(200);
    await panel.getByText("This month: 0 top-ups").waitFor();

    // One chat takes the balance (1,000 + 500) under 1,490: the server's loop buys the pack with the saved card.
    const cost = await page.evaluate(async () => {
      const r = await fetch("/api/ai/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: "Top me up" }] }),
      });
      return ((await r.json()) as { cost: number }).cost;
    });
    expect(cost).toBeGreaterThan(10);
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      await page.reload();
      if (await panel.getByTestId("recharge-succeeded").count()) break;
      await page.waitForTimeout(500);
    }
    await panel.getByTestId("recharge-succeeded").waitFor();
    await shot(page, "auto-recharge");

    await page.goto("/dashboard/billing");
    const receipts = page.getByTestId("receipts");
    await receipts.getByTestId("receipt-paid").first().waitFor();
    expect(await receipts.getByText("500 bonus credits").count()).toBe(2);
    const links = await receipts.getByRole("link", { name: "Receipt" }).evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    expect(links.some((href) => href.startsWith(`${simulator.url}/receipts/pi_`))).toBe(true);
    expect(errors).toEqual([]);
  });
});
