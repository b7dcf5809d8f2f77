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
    await page.locator("#alert-hourly").fill("500");
    await page.getByLabel(/pace would run the credits out/).uncheck();
    await page.getByRole("button", { name: "Save alerts" }).click();
    await page.getByText("Saved.").waitFor();
    const alerts = await page.evaluate(
      async () =>
        (await (await fetch("/api/alerts", { cache: "no-store" })).json()) as {
          alerts: { lowBalance: number; hourlySpendLimit: number | null; projectedOverrun: boolean };
        },
    );
    expect(alerts.alerts).toMatchObject({ lowBalance: 120, hourlySpendLimit: 500, projectedOverrun: false });

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
    await page.getByRole("button", { name: "Refresh deliveries" }).click();
    await page.getByTestId("deliveries").getByText("delivered").waitFor();
    // Failed deliveries since a time, sent again: none failed here.
    await page.getByRole("button", { name: "Send failed again" }).click();
    await page.getByText("0 sent again.").waitFor();

    // Rotating the secret: the new one is shown once, the old one keeps signing beside it.
    await page.getByRole("button", { name: "Rotate secret" }).click();
    const rotated = (await page.getByTestId("rotated-secret").textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await page
      .getByTestId("endpoints")
      .getByText(/the old secret signs too until/)
      .waitFor();
    const before = receiver.received.length;
    await page.getByRole("button", { name: "Send test" }).click();
    const arrived = async (n: number) => {
      const until = Date.now() + 10_000;
      while (receiver.received.length < n && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      return receiver.received[n - 1];
    };
    const second = await arrived(before + 1);
    expect(second.headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(verifyStandardWebhook(secret, second.headers, second.body)).toBe(true);
    expect(verifyStandardWebhook(rotated, second.headers, second.body)).toBe(true);

    // The events card: filtered by type, each event with Resend (the same webhook-id again).
    await page.getByLabel("Type", { exact: true }).selectOption("webhook.test");
    await page.getByTestId("events").getByText("webhook.test").first().waitFor();
    expect(await page.getByTestId("events").locator("tbody tr").count()).toBe(2);
    await page.getByTestId("events").getByRole("button", { name: "Resend" }).first().click();
    await page.getByText("Sent again.").waitFor();
    const resent = await arrived(before + 2);
    expect(resent.headers["webhook-id"]).toBe(second.headers["webhook-id"]);
    expect(verifyStandardWebhook(rotated, resent.headers, resent.body)).toBe(true);
    await shot(page, "alerts");
    expect(errors).toEqual([]);
  });
});
