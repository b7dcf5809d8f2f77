import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { newPage, signIn, useHarness } from "./harness";

/**
 * Disabled features are hidden, not broken: a second server (same build; the flags are read at run
 * time) in classic SaaS mode with image generation, knowledge chat and API keys switched off.
 */
const h = useHarness({
  env: {
    PUBLIC_PRICING_MODEL: "classic_saas",
    PUBLIC_AI_IMAGE_GEN_ENABLED: "false",
    PUBLIC_AI_RAG_CHAT_ENABLED: "false",
    API_KEYS_ENABLED: "false",
  },
});

const navLinks = (page: Page) => page.getByRole("navigation", { name: "Dashboard" }).getByRole("link").allTextContents();

describe("dashboard with features switched off", () => {
  let page: Page;

  it("leaves disabled features out of the navigation, the overview and the AI tabs", async () => {
    ({ page } = await newPage(h));
    await signIn(page, `flags-${Date.now().toString(36)}@example.com`);
    await page.getByTestId("plan-name").waitFor();
    expect(await navLinks(page)).toEqual([
      "Overview",
      "Billing",
      "Usage",
      "AI studio",
      "Files",
      "Email",
      "Organisations",
      "Alerts",
      "Account",
      "Mailbox (dev)",
    ]);
    const tools = page.getByRole("region", { name: "What you can do" });
    expect(await tools.getByRole("link", { name: /Images/ }).count()).toBe(0);
    expect(await tools.getByRole("link", { name: /Knowledge/ }).count()).toBe(0);
    expect(await tools.getByRole("link", { name: /Chat/ }).count()).toBe(1);

    await page.goto("/dashboard/ai");
    const tabs = await page.getByRole("navigation", { name: "AI studio" }).getByRole("link").allTextContents();
    expect(tabs).toEqual(["Chat", "Single / batch", "Content templates", "Speech to text"]);
  });

  it("answers 404 for the pages of disabled features", async () => {
    for (const path of ["/dashboard/ai/image", "/dashboard/knowledge", "/dashboard/keys"]) {
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

  it("says when to retry after a 429", async () => {
    // The upload category allows 10 uploads per user per hour: use them up through the API ...
    await page.goto("/dashboard/files");
    const statuses = await page.evaluate(async () => {
      const out: number[] = [];
      for (let i = 0; i < 10; i += 1) {
        const bytes = new Uint8Array(64);
        bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
        crypto.getRandomValues(bytes.subarray(8));
        const q = new URLSearchParams({ filename: `r${i}.png`, filesize: "64", filetype: "image/png" });
        out.push((await fetch(`/api/upload?${q}`, { method: "POST", body: bytes })).status);
      }
      return out;
    });
    expect(statuses).toEqual(Array(10).fill(200));
    // ... then the page's upload is refused and the notice says when it can be tried again.
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("one more")]);
    await page.locator("#file-input").setInputFiles({ name: "one-more.png", mimeType: "image/png", buffer: png });
    const alert = page.getByRole("alert").filter({ hasText: "Too many requests" });
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/You can try again in \d+ (minutes?|seconds?) \(at /);
  });
});
