import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { newPage, signIn, useHarness } from "./harness";

/**
 * Disabled features are hidden, not broken: a second server (same build; the flags are read at run
 * time) in classic SaaS mode with image generation and knowledge chat switched off.
 */
const h = useHarness({
  env: { PUBLIC_PRICING_MODEL: "classic_saas", PUBLIC_AI_IMAGE_GEN_ENABLED: "false", PUBLIC_AI_RAG_CHAT_ENABLED: "false" },
});

const navLinks = (page: Page) => page.getByRole("navigation", { name: "Dashboard" }).getByRole("link").allTextContents();

describe("dashboard with features switched off", () => {
  let page: Page;

  it("leaves disabled features out of the navigation, the overview and the AI tabs", async () => {
    ({ page } = await newPage(h));
    await signIn(page, `flags-${Date.now().toString(36)}@example.com`);
    await page.getByTestId("plan-name").waitFor();
    expect(await navLinks(page)).toEqual(["Overview", "Billing", "Usage", "AI studio", "Files", "Mailbox (dev)"]);
    const tools = page.getByRole("region", { name: "What you can do" });
    expect(await tools.getByRole("link", { name: /Images/ }).count()).toBe(0);
    expect(await tools.getByRole("link", { name: /Knowledge/ }).count()).toBe(0);
    expect(await tools.getByRole("link", { name: /Chat/ }).count()).toBe(1);

    await page.goto("/dashboard/ai");
    const tabs = await page.getByRole("navigation", { name: "AI studio" }).getByRole("link").allTextContents();
    expect(tabs).toEqual(["Chat", "Content templates", "Speech to text"]);
  });

  it("answers 404 for the pages of disabled features", async () => {
    for (const path of ["/dashboard/ai/image", "/dashboard/knowledge"]) {
      const res = await page.goto(path);
      expect(res?.status(), path).toBe(404);
    }
  });

  it("shows usage without credits, bonus packages or the auto-use toggle in classic SaaS mode", async () => {
    await page.goto("/dashboard/credits");
    await page.getByRole("heading", { name: "Usage", level: 1 }).waitFor();
    await page.getByText("Unlimited: your plan does not charge credits").waitFor();
    expect(await page.getByRole("heading", { name: "Bonus credit packages" }).count()).toBe(0);
    expect(await page.getByRole("switch").count()).toBe(0);

    await page.goto("/dashboard/files");
    await page.getByRole("heading", { name: "Files", level: 1 }).waitFor();
    expect(await page.getByRole("main").getByRole("link", { name: "Knowledge" }).count()).toBe(0);
  });
});
