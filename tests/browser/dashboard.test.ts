import { randomBytes } from "node:crypto";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { clickMailLink, newPage, shot, signIn, useHarness, watchErrors } from "./harness";

/**
 * The dashboard in a real browser (Debian chromium via playwright-core) against the production build
 * on the embedded default: a new user signs in, buys a plan and a bonus package through the local
 * checkout simulator, streams a chat (with an image), generates an image, writes content from a
 * template, transcribes audio, uploads and deletes files, asks a question about an uploaded document
 * and sees it all in the credit history. Every action goes through the API, so charges are real.
 */
const h = useHarness();
/**
 * Names this run uses (accounts, the document's codename): fixed on the suite's own fresh server, so
 * the screenshots stay the same from run to run; unique against a reused BROWSER_BASE_URL server.
 */
let run = "";

async function json<T>(page: Page, url: string): Promise<T> {
  return page.evaluate(async (u) => (await fetch(u, { cache: "no-store" })).json(), url) as Promise<T>;
}

/** A real 64x64 RGB PNG (a gradient), encoded here so the page can display it. */
function png(size = 64): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const rows = Buffer.alloc(size * (1 + size * 3));
  for (let y = 0; y < size; y += 1) {
    const row = y * (1 + size * 3);
    for (let x = 0; x < size; x += 1) {
      rows[row + 1 + x * 3] = 60 + x * 3;
      rows[row + 2 + x * 3] = 90 + y * 2;
      rows[row + 3 + x * 3] = 230;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", zlib.deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
const PNG = png();

/** One second of 8 kHz mono 16-bit silence as a WAV file. */
function wav(seconds = 1): Buffer {
  const rate = 8000;
  const data = Buffer.alloc(rate * 2 * seconds);
  const header = Buffer.alloc(44);
  header.write("RIFF", 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVE", 8);
  header.write("fmt ", 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

interface Usage {
  remaining: number;
  bonusCredits: number;
  tier: string;
}

/** Errors the pages log (uncaught exceptions, console.error, CSP violations); the last test expects none. */
const pageErrors: string[] = [];
const watch = (p: Page) => watchErrors(p, pageErrors);

describe("dashboard in a real browser", () => {
  let page: Page;

  it("redirects a signed-out visitor to sign-in and signs in with the development sign-in", async () => {
    run = h.server ? "demo" : Date.now().toString(36);
    ({ page } = await newPage(h));
    await watch(page);
    await page.goto("/signin");
    // The sign-in methods load from GET /api/auth/providers; the development sign-in is one of them.
    await page.getByRole("button", { name: "Sign in at once, without a link" }).waitFor();
    await shot(page, "signin");
    await signIn(page, `ada-${run}@example.com`);
    await page.getByTestId("plan-name").waitFor();
    expect(await page.getByTestId("plan-name").textContent()).toBe("Free");
    expect(await page.getByTestId("account-status").textContent()).toBe("Free plan");
    // The navigation shows every enabled feature and the development mailbox.
    for (const name of ["Overview", "Billing", "Credits", "AI studio", "Knowledge", "Files", "Email", "Mailbox (dev)"]) {
      expect(await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name }).count(), name).toBe(1);
    }
  });

  it("buys a plan through the local checkout simulator", async () => {
    await page.getByRole("link", { name: "Billing", exact: true }).click();
    await page.waitForURL("**/dashboard/billing");
    await page.getByTestId("plan-pro").waitFor();
    await page.getByRole("button", { name: "Subscribe to Pro" }).click();
    await page.waitForURL(/\/simulator\/checkout\//);
    await page.getByRole("button", { name: "Complete purchase" }).click();
    await page.waitForURL((url) => url.pathname === "/dashboard" && url.searchParams.get("checkout") === "success");
    await page.getByText("Thank you for your purchase!").waitFor();
    await page.getByTestId("plan-name").waitFor();
    expect(await page.getByTestId("plan-name").textContent()).toBe("Pro");
    expect(await page.getByTestId("account-status").textContent()).toBe("Active subscription");
    await shot(page, "overview");

    await page.goto("/dashboard/billing");
    await page.getByTestId("current-plan").getByText("Pro").waitFor();
    expect(await page.getByTestId("subscription-status").textContent()).toBe("active");
    expect(await page.getByText("Your current plan").count()).toBe(1);
    expect(await page.getByRole("button", { name: "Switch to Basic" }).count()).toBe(1);
    await shot(page, "billing");
  });

  it("buys a bonus credit package and shows the purchase=success banner", async () => {
    const before = await json<Usage>(page, "/api/ai/usage");
    await page.goto("/dashboard/credits");
    const pkg = page.getByTestId("bonus-package").first();
    await pkg.waitFor();
    const credits = Number((await pkg.locator("p").first().textContent())!.replace(/[^0-9]/g, ""));
    await pkg.getByRole("button").click();
    await page.waitForURL(/\/simulator\/checkout\//);
    await page.getByRole("button", { name: "Complete purchase" }).click();
    await page.waitForURL((url) => url.pathname === "/dashboard/credits" && url.searchParams.get("purchase") === "success");
    await page.getByText("Purchase complete").waitFor();
    await page.getByTestId("usage-bonus").waitFor();
    expect(Number((await page.getByTestId("usage-bonus").textContent())!.replace(/,/g, ""))).toBe(before.bonusCredits + credits);
    await page.getByTestId("history-table").getByText("Bonus package").waitFor();
  });

  it("switches bonus auto-use with the toggle", async () => {
    const toggle = page.getByRole("switch");
    await toggle.waitFor();
    const was = await toggle.getAttribute("aria-checked");
    await toggle.click();
    await expect.poll(() => toggle.getAttribute("aria-checked")).toBe(was === "true" ? "false" : "true");
    const prefs = await json<{ bonusCreditsAutoUse: boolean }>(page, "/api/credits/preferences");
    expect(prefs.bonusCreditsAutoUse).toBe(was !== "true");
    await toggle.click();
    await expect.poll(() => toggle.getAttribute("aria-checked")).toBe(was);
  });

  it("streams a chat answer, then one about an attached image", async () => {
    const before = await json<Usage>(page, "/api/ai/usage");
    await page.goto("/dashboard/ai");
    await page.getByLabel("Message").fill("Say hello to the browser test");
    await page.getByRole("button", { name: "Send" }).click();
    const answer = page.getByTestId("assistant-message").last();
    await page.getByTestId("chat-cost").waitFor();
    expect(await answer.textContent()).toContain("[offline]");
    expect(await page.getByTestId("chat-cost").textContent()).toContain("20 credits used");

    await page.locator("#chat-image").setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: PNG });
    await page.getByRole("button", { name: "Remove image" }).waitFor();
    await page.getByLabel("Message").fill("What is in this picture?");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByTestId("chat-cost").getByText("30 credits used").waitFor();
    expect(await page.getByTestId("assistant-message").count()).toBe(2);
    expect(await page.getByRole("img", { name: "Attached image" }).count()).toBe(1);
    await shot(page, "ai-chat");
    const after = await json<Usage>(page, "/api/ai/usage");
    expect(before.remaining - after.remaining).toBe(50);
  });

  it("answers a single request from the cache, then a batch of 2 prompts with per-item answers and charges", async () => {
    const before = await json<Usage>(page, "/api/ai/usage");
    await page.goto("/dashboard/ai");
    await page.getByRole("navigation", { name: "AI studio" }).getByRole("link", { name: "Single / batch" }).click();
    await page.waitForURL("**/dashboard/ai/batch");

    // Single, with the cache: the first answer is new, the same request again comes from the cache.
    await page.getByLabel("Use the answer cache").check();
    await page.getByLabel("Cache lifetime (seconds)").fill("600");
    await page.getByLabel("Prompt", { exact: true }).fill(`What is the capital of France? (${run})`);
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await page.getByTestId("single-cache").getByText("No (new answer, now cached)").waitFor();
    expect(await page.getByTestId("single-answer").textContent()).toContain("[offline]");
    expect(await page.getByTestId("single-cost").textContent()).toBe("15");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await page.getByTestId("single-cache").getByText("Yes (cached answer)").waitFor();
    expect(await page.getByTestId("single-cost").textContent()).toBe("15");

    // Batch of two prompts: each answer in order, and what the batch cost.
    await page.getByLabel("Use the answer cache").uncheck();
    await page.getByLabel(/^Batch of prompts/).check();
    await page.getByLabel("Prompt 1", { exact: true }).fill("Name a red fruit");
    await page.getByLabel("Prompt 2", { exact: true }).fill("Name a yellow fruit");
    await page.getByRole("button", { name: "Send batch" }).click();
    const cost = page.getByTestId("batch-cost");
    await cost.waitFor();
    expect(await cost.textContent()).toBe("30 credits charged for 2 of 2 answers.");
    const items = page.getByTestId("batch-result");
    expect(await items.count()).toBe(2);
    const first = (await items.nth(0).getByTestId("batch-answer").textContent())!;
    const second = (await items.nth(1).getByTestId("batch-answer").textContent())!;
    expect(first).toContain("[offline]");
    expect(first).toContain("Name a red fruit");
    expect(second).toContain("Name a yellow fruit");
    expect(await items.nth(0).getByText("15 credits").count()).toBe(1);
    expect(await page.getByTestId("batch-error").count()).toBe(0);
    expect(await page.getByTestId("batch-cached").count()).toBe(0);
    await shot(page, "ai-batch");
    const after = await json<Usage>(page, "/api/ai/usage");
    expect(before.remaining - after.remaining).toBe(15 + 15 + 30);
  });

  it("generates an image with its options", async () => {
    await page.goto("/dashboard/ai/image");
    await page.getByLabel("Prompt").fill("A lighthouse at dawn, watercolor");
    await page.getByLabel("Size").selectOption("1536x1024");
    await page.getByLabel("Quality").selectOption("low");
    // Transparent + JPEG is explained and cannot be sent.
    await page.getByLabel("Format").selectOption("jpeg");
    await page.getByLabel("Transparent").check();
    await page.getByText("JPEG cannot have a transparent background").waitFor();
    expect(await page.getByRole("button", { name: /^Generate/ }).isDisabled()).toBe(true);
    await page.getByLabel("Format").selectOption("png");
    await page.getByRole("button", { name: /^Generate/ }).click();
    const img = page.getByTestId("generated-image");
    await img.waitFor();
    expect(await img.getAttribute("src")).toMatch(/^data:image\/png;base64,/);
    const width = await img.evaluate((el) => (el as HTMLImageElement).naturalWidth);
    expect(width).toBe(1536);
    await page.getByText("80 credits used").waitFor();
    await shot(page, "ai-image");
  });

  it("writes content from a template, streamed", async () => {
    await page.goto("/dashboard/ai/content");
    await page.getByLabel("Template").selectOption("email");
    await page.getByLabel(/^Recipient/).fill("New customers");
    await page.getByLabel(/^Purpose/).fill("Welcome them to the service");
    await page.getByLabel("Tone").selectOption("friendly");
    await page.getByRole("button", { name: /^Generate/ }).click();
    await page.getByText("25 credits used").waitFor();
    expect((await page.getByTestId("content-output").textContent())!.length).toBeGreaterThan(20);
    await shot(page, "ai-content");
  });

  it("transcribes an uploaded recording", async () => {
    await page.goto("/dashboard/ai/speech");
    await page.locator("#speech-file").setInputFiles({ name: "hello.wav", mimeType: "audio/wav", buffer: wav(1) });
    await page.getByRole("button", { name: /^Transcribe/ }).click();
    await page.getByTestId("transcript").waitFor();
    expect(await page.getByText("Duration: 1.0 s").count()).toBe(1);
    await shot(page, "ai-speech");
  });

  it("uploads files with a progress bar, opens and deletes one", async () => {
    await page.goto("/dashboard/files");
    await page.getByText("No files yet").waitFor();
    const doc = `# Project Zephyr\n\nThe launch codename of project Zephyr is BLUEBIRD-${run}. The launch window opens in March.\n`;
    await page.locator("#file-input").setInputFiles({ name: "zephyr.md", mimeType: "text/markdown", buffer: Buffer.from(doc) });
    await page.getByText("Uploaded zephyr.md.").waitFor();
    await page.locator("#file-input").setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: PNG });
    await page.getByText("Uploaded dot.png.").waitFor();
    expect(await page.getByTestId("file-row").count()).toBe(2);

    // Open: a fresh short-lived signed address (GET /api/files/{id}) opened in a new tab serves the bytes.
    const row = page.getByTestId("file-row").filter({ hasText: "zephyr.md" });
    const opened = page.context().waitForEvent("request", (r) => /\/api\/files\/[^/]+\/content\?.*token=/.test(r.url()));
    await row.getByRole("button", { name: /^Open/ }).click();
    const signed = (await opened).url();
    const res = await page.request.get(signed);
    expect(res.status()).toBe(200);
    expect(res.headers()["content-disposition"]).toContain("zephyr.md");
    expect(await res.text()).toBe(doc);
    await shot(page, "files");

    const png = page.getByTestId("file-row").filter({ hasText: "dot.png" });
    await png.getByRole("button", { name: /^Delete/ }).click();
    await png.getByRole("button", { name: "Confirm delete" }).click();
    await page.getByText("Deleted dot.png.").waitFor();
    expect(await page.getByTestId("file-row").count()).toBe(1);
  });

  it("shows upload progress for a larger file", async () => {
    // Record every value the progress bar shows while the upload runs.
    await page.evaluate(() => {
      const w = window as unknown as { __progress: number[] };
      w.__progress = [];
      new MutationObserver(() => {
        const bar = document.querySelector("progress");
        if (bar) w.__progress.push(Number(bar.getAttribute("value")));
      }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["value"] });
    });
    // 8 MiB: a PNG signature and random bytes (passes the content check; images are not indexed for RAG).
    const big = Buffer.concat([PNG.subarray(0, 8), randomBytes(8 * 1024 * 1024 - 8)]);
    await page.locator("#file-input").setInputFiles({ name: "big.png", mimeType: "image/png", buffer: big });
    await page.getByText("Uploaded big.png.").waitFor({ timeout: 60_000 });
    const seen = await page.evaluate(() => (window as unknown as { __progress: number[] }).__progress);
    expect(seen.length).toBeGreaterThan(0);
    expect(Math.max(...seen)).toBeGreaterThan(0);
    const row = page.getByTestId("file-row").filter({ hasText: "big.png" });
    await row.getByRole("button", { name: /^Delete/ }).click();
    await row.getByRole("button", { name: "Confirm delete" }).click();
    await page.getByText("Deleted big.png.").waitFor();
  });

  it("answers a question about the uploaded document with its sources, streamed", async () => {
    await page.goto("/dashboard/knowledge");
    await page.getByText("No conversations yet").waitFor();
    await page.getByLabel("Question").fill("What is the launch codename of project Zephyr?");
    await page.getByRole("button", { name: "Ask" }).click();
    const answer = page.getByTestId("rag-answer").last();
    await page.getByText(/credits used/).waitFor();
    expect(await answer.textContent()).toContain("[offline]");
    const sources = answer.getByTestId("rag-sources");
    await sources.locator("summary").click();
    expect(await sources.textContent()).toContain(`BLUEBIRD-${run}`);
    await page.getByTestId("conversation-list").getByText("What is the launch codename of project Zephyr?").waitFor();
    // A follow-up continues the same conversation.
    await page.getByLabel("Question").fill("When does the launch window open?");
    await page.getByRole("button", { name: "Ask" }).click();
    await expect.poll(() => page.getByTestId("rag-answer").count()).toBe(2);
    await page.getByText(/credits used/).waitFor();
    await page.getByTestId("conversation-list").getByText("4 messages").waitFor();
    await shot(page, "knowledge");

    // The conversation is kept: after a reload it opens from the list with its answers and sources.
    await page.reload();
    await page
      .getByTestId("conversation-list")
      .getByRole("button", { name: /What is the launch codename/ })
      .click();
    await expect.poll(() => page.getByTestId("rag-answer").count()).toBe(2);
    expect(await page.getByTestId("rag-question").first().textContent()).toContain("What is the launch codename of project Zephyr?");
    const kept = page.getByTestId("rag-answer").first().getByTestId("rag-sources");
    await kept.locator("summary").click();
    expect(await kept.textContent()).toContain(`BLUEBIRD-${run}`);
  });

  it("sends an email and a test email that show up in the local mailbox", async () => {
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Email" }).click();
    await page.waitForURL("**/dashboard/email");
    const own = `ada-${run}@example.com`;
    // The recipient starts as the user's own address (the recipient policy allows only that here).
    await expect.poll(() => page.getByLabel("To", { exact: true }).inputValue()).toBe(own);
    expect(await page.getByText(`you can send only to your own address (${own})`).count()).toBe(1);

    // Anyone else is refused by the API, and the refusal is shown.
    await page.getByLabel("To", { exact: true }).fill("someone@elsewhere.test");
    await page.getByLabel("Subject", { exact: true }).fill("Should not leave");
    await page.getByLabel("Message", { exact: true }).fill("Hello stranger");
    await page.getByRole("button", { name: "Send email" }).click();
    await page.getByRole("alert").filter({ hasText: "Recipient not allowed" }).waitFor();

    const subject = `Dashboard email ${run}`;
    await page.getByLabel("To", { exact: true }).fill(own);
    await page.getByLabel("Subject", { exact: true }).fill(subject);
    await page.getByLabel("Type", { exact: true }).selectOption("notification");
    await page.getByLabel("Message", { exact: true }).fill("Sent from the dashboard's email page.");
    await page.getByRole("button", { name: "Send email" }).click();
    const messageId = page.getByTestId("email-sent-message-id");
    await messageId.waitFor();
    expect(await messageId.textContent()).toMatch(/^local-/);
    expect(await page.getByText(`Email sent to ${own}.`).count()).toBe(1);

    await page.getByRole("button", { name: "Send test email" }).click();
    const testId = page.getByTestId("test-email-sent-message-id");
    await testId.waitFor();
    expect(await testId.textContent()).toMatch(/^local-/);
    await shot(page, "email");

    // Both messages are in the development mailbox, reached from the page's link.
    const sentId = (await messageId.textContent())!;
    const testSentId = (await testId.textContent())!;
    await page.getByRole("link", { name: "local mailbox" }).first().click();
    await page.waitForURL("**/dev/mailbox");
    const mail = page.locator("article").filter({ hasText: sentId });
    await mail.getByRole("heading", { name: subject }).waitFor();
    expect(await mail.textContent()).toContain(own);
    expect(await mail.textContent()).toContain("Sent from the dashboard's email page.");
    expect(await page.locator("article").filter({ hasText: testSentId }).count()).toBe(1);
  });

  it("creates an API key, shows its secret once, and the key works with /v1 until it is revoked", async () => {
    await page.goto("/dashboard/keys");
    await page.getByText("No keys yet").waitFor();
    await page.locator("#key-name").fill("Browser test key");
    await page.getByLabel("chat", { exact: true }).check();
    await page.locator("#key-budget").fill("500");
    await page.getByRole("button", { name: "Create key" }).click();
    const secretText = page.getByTestId("new-key-secret");
    await secretText.waitFor();
    const secret = (await secretText.textContent())?.trim() ?? "";
    expect(secret).toMatch(/^sk-[0-9A-Za-z]{43}$/);
    const row = page.getByTestId("api-key-row").filter({ hasText: "Browser test key" });
    await row.waitFor();
    expect(await row.textContent()).toContain(`${secret.slice(0, 7)}…${secret.slice(-4)}`);
    expect(await row.textContent()).toContain("0 of 500 credits per month");
    await shot(page, "api-keys");

    // The key calls /v1 (a program's request, no cookie), charged to this user.
    const models = await page.request.get("/v1/models", { headers: { authorization: `Bearer ${secret}`, cookie: "" } });
    expect(models.status()).toBe(200);
    const chat = await page.request.post("/v1/chat/completions", {
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      data: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello from a key" }] },
    });
    expect(chat.status()).toBe(200);
    expect((await chat.json()).usage.credits_charged).toBe(15);

    // The secret is not shown again: a reload lists the key without it.
    await page.getByRole("button", { name: "Done" }).click();
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(secret);
    expect(await row.textContent()).toContain("15 of 500 credits");

    await row.getByRole("button", { name: /^Rename/ }).click();
    await row.getByLabel("New name for Browser test key").fill("Renamed key");
    await row.getByRole("button", { name: "Save" }).click();
    await page.getByText("Renamed to “Renamed key”.").waitFor();
    const renamed = page.getByTestId("api-key-row").filter({ hasText: "Renamed key" });
    await renamed.getByRole("button", { name: /^Revoke/ }).click();
    await renamed.getByRole("button", { name: "Confirm revoke" }).click();
    await page.getByText(/Revoked “Renamed key”/).waitFor();
    expect(await renamed.textContent()).toContain("revoked");
    const after = await page.request.get("/v1/models", { headers: { authorization: `Bearer ${secret}` } });
    expect(after.status()).toBe(401);
  });

  it("lists every charge in the credit history, filtered by year", async () => {
    await page.goto("/dashboard/credits");
    const table = page.getByTestId("history-table");
    await table.waitFor();
    for (const op of [
      "Chat",
      "Batch chat",
      "Streaming chat",
      "Streaming chat with image",
      "Image generation",
      "Content generation",
      "Speech to text",
      "Knowledge question",
      "Bonus package",
    ]) {
      expect(await table.getByRole("cell", { name: op, exact: true }).count(), op).toBeGreaterThan(0);
    }
    const year = new Date().getUTCFullYear();
    expect(await page.getByLabel("Year").inputValue()).toBe(String(year));
    await shot(page, "credits");
  });

  it("explains a 402 with a way to get credits", async () => {
    const { context, page: other } = await newPage(h);
    await watch(other);
    await signIn(other, `bob-${run}@example.com`);
    await other.goto("/dashboard/ai/image");
    // Spend the free monthly credits on 80-credit images; the next one is refused with 402.
    let { remaining } = await json<Usage>(other, "/api/ai/usage");
    expect(remaining).toBeLessThan(80 * 5);
    for (let i = 0; remaining >= 80; i += 1) {
      await other.getByLabel("Prompt").fill(`A small red circle number ${i}`);
      await other.getByRole("button", { name: /^Generate/ }).click();
      remaining -= 80;
      await other.getByText(`80 credits used, ${remaining.toLocaleString("en")} remaining`).waitFor();
    }
    await other.getByLabel("Prompt").fill("One image too many");
    await other.getByRole("button", { name: /^Generate/ }).click();
    // (Next.js's route announcer is an empty role="alert" too.)
    const alert = other.getByRole("alert").filter({ hasText: "Insufficient credits" });
    await alert.waitFor();
    expect(await alert.textContent()).toContain("Insufficient credits");
    expect(await alert.getByRole("link", { name: "bonus credit package" }).getAttribute("href")).toBe("/dashboard/credits");
    expect(await alert.getByRole("link", { name: "upgrade your plan" }).getAttribute("href")).toBe("/dashboard/billing");
    await context.close();
  });

  it("fits a phone screen and works from the keyboard", async () => {
    const { context, page: phone } = await newPage(h, { width: 390, height: 844 });
    await watch(phone);
    await signIn(phone, `cy-${run}@example.com`);
    // The navigation collapses behind a menu button that opens it; following a link closes it again.
    const nav = phone.getByRole("navigation", { name: "Dashboard" });
    expect(await nav.isVisible()).toBe(false);
    const menu = phone.getByRole("button", { name: "Menu" });
    await menu.click();
    expect(await menu.getAttribute("aria-expanded")).toBe("true");
    await nav.getByRole("link", { name: "Files" }).click();
    await phone.waitForURL("**/dashboard/files");
    await expect.poll(() => nav.isVisible()).toBe(false);
    // No page scrolls sideways on a phone.
    for (const path of [
      "/dashboard",
      "/dashboard/billing",
      "/dashboard/credits",
      "/dashboard/ai",
      "/dashboard/ai/image",
      "/dashboard/ai/content",
      "/dashboard/ai/speech",
      "/dashboard/ai/batch",
      "/dashboard/files",
      "/dashboard/knowledge",
      "/dashboard/email",
    ]) {
      await phone.goto(path);
      await phone.getByRole("heading", { level: 1 }).waitFor();
      await phone.waitForLoadState("networkidle");
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
    // Keyboard: the first Tab reaches the skip link, which moves focus past the navigation.
    await phone.goto("/dashboard/credits");
    await phone.getByRole("heading", { name: "History" }).waitFor();
    await phone.keyboard.press("Tab");
    expect(await phone.evaluate(() => document.activeElement?.textContent?.trim())).toBe("Skip to content");
    await phone.keyboard.press("Enter");
    await expect.poll(() => phone.evaluate(() => location.hash)).toBe("#main");
    // The auto-use switch is a button: reachable with Tab and switched with Space.
    const toggle = phone.getByRole("switch");
    const was = await toggle.getAttribute("aria-checked");
    await toggle.focus();
    await phone.keyboard.press("Space");
    await expect.poll(() => toggle.getAttribute("aria-checked")).toBe(was === "true" ? "false" : "true");
    await context.close();
  });

  it("cancels the subscription and shows when it ends", async () => {
    await page.goto("/dashboard/billing");
    await page.getByRole("button", { name: "Cancel subscription" }).click();
    await page.getByRole("button", { name: "Yes, cancel" }).click();
    await page.getByText(/Your plan stays active until/).waitFor();
    await page.getByTestId("subscription-status").getByText("cancelled").waitFor();
  });

  it("signs out", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL((url) => url.pathname === "/signin");
    const session = await json<{ user?: unknown } | null>(page, "/api/auth/session");
    expect(session?.user).toBeUndefined();
    await page.goto("/dashboard");
    await page.waitForURL(/\/signin\?callbackUrl=/);
  });

  it("signs in again by a link from the local mailbox: clicking it in the message opens the app in the top window", async () => {
    await page.goto("/signin");
    await page.getByLabel("Your email address").fill(`ada-${run}@example.com`);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.getByTestId("link-sent").getByRole("link", { name: "local mailbox" }).click();
    await page.waitForURL("**/dev/mailbox");
    // The newest message is the link; its html is in a sandboxed frame.
    const frame = page.frameLocator("article iframe").first();
    await clickMailLink(page, frame.getByRole("link", { name: "Sign in" }), (url) => url.pathname === "/signin/email");
    await page.getByText(`Sign in as ada-${run}@example.com?`).waitFor();
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname === "/dashboard");
    const session = await json<{ user?: { email?: string } } | null>(page, "/api/auth/session");
    expect(session?.user?.email).toBe(`ada-${run}@example.com`);
    // The plain-text copy of the link wraps inside its box instead of running out of it.
    await page.goto("/dev/mailbox");
    const pre = page.locator("article pre").first();
    const box = await pre.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(box.scroll).toBeLessThanOrEqual(box.client);
  });

  it("logged no errors in the browser on any page", () => {
    expect(pageErrors).toEqual([]);
  });
});
