import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { newPage, shot, signIn, useHarness, watchErrors } from "./harness";
import { TEST_SECRETS } from "./server";

/**
 * The operator console in a real browser against the production build: an operator finds the user
 * who "paid and got no credits", adjusts their credits with a reason (review, then confirm), sees the
 * ledger row, and replays their payment webhook; the AI routes and scheduled jobs pages show their
 * tables (a job run by hand heads its runs); a customer gets the not-found page; the console works
 * at phone width and from the keyboard.
 */
const OPERATOR = "ops@example.com";
const h = useHarness({ env: { ADMIN_EMAILS: OPERATOR } });
const errors: string[] = [];

/** Delivers a signed Lemon Squeezy-shaped webhook to the server, as the provider would. */
async function deliverPayment(event: unknown): Promise<number> {
  const raw = JSON.stringify(event);
  const res = await fetch(`${h.baseUrl}/api/webhooks/payment`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-signature": createHmac("sha256", TEST_SECRETS.PAYMENT_WEBHOOK_SECRET).update(raw).digest("hex"),
    },
    body: raw,
  });
  return res.status;
}

describe("operator console in a real browser", () => {
  let customerId = "";
  let page: Page;

  it("shows a customer the not-found page, nothing more", async () => {
    const { context, page: customer } = await newPage(h);
    await watchErrors(customer, errors);
    await signIn(customer, "paid-no-credits@example.com");
    const res = await customer.goto("/admin");
    expect(res?.status()).toBe(404);
    expect(await customer.getByRole("navigation", { name: "Operator console" }).count()).toBe(0);
    const api = await customer.evaluate(async () => {
      const r = await fetch("/api/admin/users");
      return { status: r.status, body: await r.json() };
    });
    expect(api).toEqual({ status: 404, body: { error: "Not found: no API endpoint at /api/admin/users", code: "not_found" } });
    customerId = await customer.evaluate(
      async () => ((await (await fetch("/api/auth/session")).json()) as { user: { id: string } }).user.id,
    );
    await context.close();
    // The customer's bonus order arrives (and is granted); the operator will replay it later.
    expect(
      await deliverPayment({
        meta: { event_name: "order_created", custom_data: { user_id: customerId } },
        data: {
          type: "orders",
          id: "ord-browser-1",
          attributes: {
            status: "paid",
            total: 499,
            user_email: "paid-no-credits@example.com",
            first_order_item: { variant_id: "local-bonus-basic-500" },
            created_at: new Date().toISOString(),
            updated_at: new Date().toISOString(),
          },
        },
      }),
    ).toBe(200);
  });

  it("finds the user, adjusts their credits with a reason after a review, and sees the ledger row", async () => {
    ({ page } = await newPage(h));
    await watchErrors(page, errors);
    await signIn(page, OPERATOR);
    await page.goto("/admin");
    await page.getByRole("heading", { name: "Needs attention" }).waitFor();
    await shot(page, "admin-overview");
    await page.getByRole("navigation", { name: "Operator console" }).getByRole("link", { name: "Users" }).click();
    await page.waitForURL("**/admin/users");
    await page.getByLabel("Search users").fill("paid-no");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("link", { name: "paid-no-credits@example.com" }).click();
    await page.waitForURL(`**/admin/users/${customerId}`);
    await page.getByRole("heading", { name: "Adjust credits" }).waitFor();

    await page.getByLabel("Amount (negative removes)").fill("250");
    await page.getByLabel("Bucket").selectOption("subscription");
    const adjust = page.locator("form", { has: page.getByRole("heading", { name: "Adjust credits" }) });
    await adjust.getByLabel("Reason (recorded in the audit log)").fill("Ticket 4711: paid, no credits");
    await adjust.getByRole("button", { name: "Review" }).click();
    await adjust.getByText("Add 250 subscription credits to paid-no-credits@example.com.").waitFor();
    await adjust.getByRole("button", { name: "Confirm adjustment" }).click();
    await adjust.getByText(/^Adjusted: subscription/).waitFor();
    const ledger = page.getByTestId("ledger");
    await ledger.getByText("Ticket 4711: paid, no credits (ops@example.com)").waitFor();
    await shot(page, "admin-user");
    expect(await ledger.locator("tr", { hasText: "Ticket 4711" }).getByText("+250").count()).toBe(1);
  });

  it("replays the user's payment webhook from its page (an order already granted grants nothing new)", async () => {
    await page.getByRole("link", { name: "order_created" }).first().click();
    await page.waitForURL(/\/admin\/webhooks\/[0-9a-f-]+$/);
    await page.getByRole("region", { name: "Payload" }).or(page.getByLabel("Payload")).first().waitFor();
    expect(await page.getByLabel("Payload").textContent()).toContain("ord-browser-1");
    const replay = page.locator("form", { has: page.getByRole("heading", { name: "Replay this delivery" }) });
    await replay.getByLabel("Reason (recorded in the audit log)").fill("Customer asked twice");
    await replay.getByRole("button", { name: "Review" }).click();
    await replay.getByRole("button", { name: "Confirm replay" }).click();
    await replay.getByText("Replayed: processed (order already granted).").waitFor();
    expect(await page.getByTestId("delivery-status").textContent()).toBe("processed");
    await shot(page, "admin-webhook");

    await page.getByRole("navigation", { name: "Operator console" }).getByRole("link", { name: "Audit log" }).click();
    await page.getByRole("cell", { name: "Customer asked twice" }).waitFor();
    expect(await page.getByRole("cell", { name: "Ticket 4711: paid, no credits" }).count()).toBe(1);
  });

  it("shows each model's routes, and runs a scheduled job whose run then heads its table", async () => {
    await page.getByRole("navigation", { name: "Operator console" }).getByRole("link", { name: "AI routes" }).click();
    const routes = page.getByRole("table", { name: "Routes per model" });
    await routes.waitFor();
    expect(await routes.getByRole("columnheader").allTextContents()).toEqual([
      "Model",
      "Route",
      "Calls",
      "Errors",
      "p50 / p95",
      "Last error",
    ]);
    expect(await routes.getByRole("row").count()).toBeGreaterThan(1);
    await shot(page, "admin-ai-routes");

    await page.getByRole("navigation", { name: "Operator console" }).getByRole("link", { name: "Cron" }).click();
    const job = page.locator("section", { has: page.getByRole("heading", { name: "expire-bonus-credits", exact: true }) });
    await job.getByLabel("Reason (recorded in the audit log)").fill("Checking the job by hand");
    await job.getByRole("button", { name: "Review" }).click();
    await job.getByRole("button", { name: "Confirm run" }).click();
    await job.getByText(/^(Done|Not run): /).waitFor();
    const runs = job.getByRole("table", { name: "Last runs of expire-bonus-credits" });
    await runs.waitFor();
    expect(await runs.getByRole("columnheader").allTextContents()).toEqual(["Started", "Status", "Result"]);
    expect(await runs.getByRole("row").count()).toBeGreaterThan(1);
  });

  it("reads an organisation's audit log: the owner's change with who made it, the operator's credit as the site's with its reason; filtered by family and as CSV", async () => {
    const { context, page: owner } = await newPage(h);
    await watchErrors(owner, errors);
    await signIn(owner, "audit-owner@example.com");
    const orgId = await owner.evaluate(async () => {
      const created = (await (
        await fetch("/api/orgs", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: "Audit Co" }),
        })
      ).json()) as { organisation: { id: string } };
      const id = created.organisation.id;
      await fetch(`/api/orgs/${id}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Audit Company" }),
      });
      return id;
    });
    await context.close();

    await page.goto(`/admin/users/${orgId}`);
    await page.getByRole("heading", { name: "Adjust credits" }).waitFor();
    await page.getByLabel("Amount (negative removes)").fill("100");
    await page.getByLabel("Bucket").selectOption("subscription");
    const adjust = page.locator("form", { has: page.getByRole("heading", { name: "Adjust credits" }) });
    await adjust.getByLabel("Reason (recorded in the audit log)").fill("Goodwill for the outage");
    await adjust.getByRole("button", { name: "Review" }).click();
    await adjust.getByRole("button", { name: "Confirm adjustment" }).click();
    await adjust.getByText(/^Adjusted: subscription/).waitFor();

    const log = page.getByTestId("audit-events");
    await page.reload();
    await log.getByText("wallet.adjusted").waitFor();
    const renamed = log.locator("tr", { hasText: "organisation.updated" });
    expect(await renamed.getByText("audit-owner@example.com").count()).toBe(1);
    expect(await renamed.textContent()).toContain('name: "Audit Co" → "Audit Company"');
    const credited = log.locator("tr", { hasText: "wallet.adjusted" });
    expect(await credited.getByText("the site").count()).toBe(1);
    expect(await credited.textContent()).toMatch(/by: operator.*reason: Goodwill for the outage/);
    await page.getByLabel("Show").selectOption("wallet");
    await log.locator("tr", { hasText: "organisation.updated" }).waitFor({ state: "detached" });
    expect(await log.getByText("wallet.adjusted").count()).toBe(1);
    const href = (await page.getByRole("link", { name: "Download CSV" }).getAttribute("href"))!;
    expect(href).toContain("action=wallet");
    const csv = await page.evaluate(async (url) => (await fetch(url)).text(), href);
    expect(csv).toContain("wallet.adjusted");
    expect(csv).toContain("Goodwill for the outage");
    expect(csv).not.toContain("organisation.updated");
    await shot(page, "admin-organisation-audit");
  });

  it("works at phone width and from the keyboard", async () => {
    const { context, page: phone } = await newPage(h, { width: 390, height: 844 });
    await watchErrors(phone, errors);
    await signIn(phone, OPERATOR);
    await phone.goto("/admin/users");
    await phone.getByRole("button", { name: "Menu" }).click();
    await phone.getByRole("navigation", { name: "Operator console" }).getByRole("link", { name: "Webhooks" }).waitFor();
    await phone.getByRole("button", { name: "Menu" }).click();
    await phone.getByLabel("Search users").focus();
    await phone.keyboard.type("paid-no");
    await phone.keyboard.press("Enter");
    await phone.getByRole("link", { name: "paid-no-credits@example.com" }).waitFor();
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await context.close();
  });

  it("logged no page error or CSP violation", () => {
    expect(errors).toEqual([]);
  });
});
