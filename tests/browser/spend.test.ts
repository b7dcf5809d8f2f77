import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { startWebhookReceiver, verifyStandardWebhook, type WebhookReceiver } from "@/tests/helpers/webhook-receiver";
import { newPage, shot, signIn, useHarness, watchErrors } from "./harness";

/**
 * Spend at a glance and spend controls in a real browser (production build, embedded default, offline
 * AI): three chats, then the credits page's chart shows their total for today; the alerts page saves
 * new alert settings, adds a webhook endpoint (a local receiver), sends it a test event that arrives
 * signed, and shows it delivered in the endpoint's log.
 */
const h = useHarness();
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver?.close());

async function chat(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const r = await fetch("/api/ai/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "Hello chart" }] }),
    });
    return ((await r.json()) as { cost: number }).cost;
  });
}

describe("spend controls (browser)", () => {
  it("charts today's credits, saves alert settings, and delivers a signed test webhook shown in the log", async () => {
    const { page } = await newPage(h);
    const errors: string[] = [];
    await watchErrors(page, errors);
    await signIn(page, `spend-${Date.now().toString(36)}@example.com`);
    let spent = 0;
    for (let i = 0; i < 3; i++) spent += await chat(page);
    expect(spent).toBeGreaterThan(0);

    await page.goto("/dashboard/credits");
    await page.getByTestId("usage-chart-total").getByText(`${spent} credits in 3 calls this month`).waitFor();
    const today = new Date().toISOString().slice(0, 10);
    const row = page.getByTestId("usage-chart-table").locator("tr").filter({ hasText: today });
    expect(await row.locator("td").last().textContent()).toBe(String(spent));
    expect(await page.getByTestId("usage-chart").locator(".recharts-bar-rectangle").count()).toBeGreaterThan(0);
    await page.getByLabel("Stack by").selectOption("key");
    await page.getByTestId("usage-chart-table").getByText("session (no key)").waitFor();
    await shot(page, "usage-chart");

    await page.goto("/dashboard/alerts");
    await page.locator("#alert-low").fill("120");
    await page.getByRole("button", { name: "Save alerts" }).click();
    await page.getByText("Saved.").waitFor();
    const alerts = await page.evaluate(
      async () => (await (await fetch("/api/alerts", { cache: "no-store" })).json()) as { alerts: { lowBalance: number } },
    );
    expect(alerts.alerts.lowBalance).toBe(120);

    await page.locator("#endpoint-url").fill(receiver.url);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const secret = (await page.getByTestId("endpoint-secret").textContent())!;
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole("button", { name: "Send test" }).click();
    const deadline = Date.now() + 10_000;
    while (!receiver.received.some((r) => r.json.type === "webhook.test") && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const got = receiver.received.find((r) => r.json.type === "webhook.test")!;
    expect(verifyStandardWebhook(secret, got.headers, got.body)).toBe(true);
    await page.getByRole("button", { name: "Deliveries" }).click();
    await page.getByRole("button", { name: "Refresh" }).click();
    await page.getByTestId("deliveries").getByText("delivered").waitFor();
    await shot(page, "alerts");
    expect(errors).toEqual([]);
  });
});
