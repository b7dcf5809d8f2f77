import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from "playwright-core";
import { DIST_DIR, ensureBuild, removeDir, startServer, type RunningServer } from "./server";

/**
 * Debian's chromium driven by playwright-core (never a downloaded browser). CHROMIUM_PATH overrides
 * the executable; the default is /usr/bin/chromium (`apt-get install -y chromium`).
 */
export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"];

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium)`);
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}

export interface Harness {
  baseUrl: string;
  /** The build directory whose client files are checked (empty when BROWSER_BASE_URL is used). */
  distDir: string;
  browser: Browser;
  server?: RunningServer;
}

/**
 * Per test file: the server (next build + next start with a temporary DATA_DIR, or BROWSER_BASE_URL
 * when given, e.g. a `next dev` while developing) and one browser, both closed in afterAll.
 */
export function useHarness(options: { browser?: boolean; env?: Record<string, string> } = {}): Harness {
  const h = {} as Harness;
  beforeAll(async () => {
    const given = process.env.BROWSER_BASE_URL;
    if (given && options.env) {
      throw new Error("this file needs its own server settings: run it without BROWSER_BASE_URL");
    } else if (given) {
      h.baseUrl = given.replace(/\/$/, "");
      h.distDir = "";
    } else {
      ensureBuild();
      h.server = await startServer(options.env);
      h.baseUrl = h.server.baseUrl;
      h.distDir = DIST_DIR;
    }
    if (options.browser !== false) h.browser = await launchBrowser();
  });
  afterAll(async () => {
    await h.browser?.close();
    if (h.server) {
      await h.server.stop();
      if (process.env.BROWSER_KEEP_DATA !== "true") removeDir(h.server.dataDir);
    }
  });
  return h;
}

export async function newPage(h: Harness, viewport = { width: 1280, height: 860 }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await h.browser.newContext({ baseURL: h.baseUrl, viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  return { context, page };
}

/**
 * Clicks a link inside a mail shown in the local mailbox (a sandboxed frame whose links open in the
 * top window) and waits for the top window to reach `arrived`. Chromium dropped such a click once in
 * CI (the page stayed on the mailbox for 20 s; 57 clicks under CPU load here all navigated); a person
 * would click again, so a click that leaves the page where it was is repeated, at most twice, and
 * said. A link that never navigates still fails the test.
 */
export async function clickMailLink(page: Page, link: Locator, arrived: (url: URL) => boolean): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await link.click();
    if (
      await page.waitForURL(arrived, { timeout: 5_000 }).then(
        () => true,
        () => false,
      )
    )
      return;
    // Gone from the page (the navigation is under way), or clicked three times: wait, or fail, below.
    if (attempt === 3 || !(await link.isVisible().catch(() => false))) break;
    console.warn(`browser: a click on a mail link left the page at ${page.url()}; clicking again`);
  }
  await page.waitForURL(arrived);
}

/** Signs in through the sign-in page (development sign-in) and lands on the dashboard. */
export async function signIn(page: Page, email: string): Promise<void> {
  await page.goto("/dashboard");
  await page.waitForURL(/\/signin\?callbackUrl=/);
  await page.getByLabel("Any email address (not checked)", { exact: true }).fill(email);
  await page.getByRole("button", { name: "Sign in at once, without a link" }).click();
  await page.waitForURL((url) => url.pathname === "/dashboard");
}

/**
 * Collects into `errors` what a page logs as an error: uncaught exceptions, console.error (React
 * hydration mismatches, ...) and Content-Security-Policy violations (proxy.ts), whether or not the
 * browser logs them. The browser's own "Failed to load resource" lines for non-2xx answers are not
 * errors: the 402/404/429 answers are part of the tests.
 */
export async function watchErrors(page: Page, errors: string[]): Promise<void> {
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "inline"}`),
    );
  });
  page.on("pageerror", (e) => errors.push(`${page.url()}: uncaught ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) errors.push(`${page.url()}: ${m.text()}`);
  });
}

/** A screenshot of the viewport (what a visitor sees first) into docs/screenshots, only with BROWSER_SCREENSHOTS=true. */
export async function shot(page: Page, name: string): Promise<void> {
  if (process.env.BROWSER_SCREENSHOTS !== "true") return;
  const dir = path.join(process.cwd(), "docs", "screenshots");
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`) });
}
