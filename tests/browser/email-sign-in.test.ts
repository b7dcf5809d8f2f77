import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startResendStub, type ResendStub } from "@/tests/helpers/resend-stub";
import { newPage, useHarness } from "./harness";

/**
 * Sign-in by emailed link in a real browser, on a production server whose only real sign-in method
 * is email (Resend, here its local wire stub): ask for a link on the sign-in page, open the link from
 * the email, confirm, land signed in; the same link does not work twice.
 */
let resend: ResendStub;
const env: Record<string, string> = {};
beforeAll(async () => {
  resend = await startResendStub();
  Object.assign(env, resend.env, { EMAIL_FROM: "App <no-reply@example.com>" });
});
afterAll(async () => {
  await resend?.close();
});
const h = useHarness({ env });

describe("sign-in by emailed link (browser)", () => {
  it("asks for a link, follows it from the email and lands on the dashboard; the link then works no more", async () => {
    const { page } = await newPage(h);
    const email = `link-${Date.now().toString(36)}@example.com`;
    await page.goto("/dashboard");
    await page.waitForURL(/\/signin\?callbackUrl=/);
    await page.getByLabel("Your email address").fill(email);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.getByTestId("link-sent").waitFor();
    expect(await page.getByTestId("link-sent").textContent()).toContain("15 minutes");

    const sent = resend.sent.find((m) => [m.body.to].flat().includes(email));
    const href = /https?:\/\/[^\s"<]+\/signin\/email[?#][^\s"<]+/.exec(String(sent?.body.text ?? ""))?.[0];
    expect(href).toBeTruthy();
    const link = href!.replace(/&amp;/g, "&");
    await page.goto(link);
    await page.getByText(`Sign in as ${email}?`).waitFor();
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname === "/dashboard");
    const session = await page.evaluate(async () => (await fetch("/api/auth/session")).json());
    expect(session.user.email).toBe(email);

    // The same link in another browser: spent.
    const other = await newPage(h);
    await other.page.goto(link);
    await other.page.getByRole("button", { name: "Sign in" }).click();
    await other.page.getByText("This link has expired or was already used").waitFor();
  });
});
