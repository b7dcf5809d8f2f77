import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, describe, expect, it } from "vitest";
import MailboxPage from "@/app/dev/mailbox/page";
import { closeDb } from "@/lib/db/client";
import { sendEmail } from "@/lib/email/send-email";
import { setEnv } from "@/tests/helpers/env";

afterAll(closeDb);

describe("development mailbox page (/dev/mailbox)", () => {
  it("lists local mail newest first, with html in a sandboxed frame", async () => {
    await sendEmail({ to: "first@example.com", subject: "First message", text: "one", type: "notification" });
    await new Promise((r) => setTimeout(r, 5));
    await sendEmail({
      to: "second@example.com",
      subject: "Second <message>",
      html: "<p>two</p><script>alert(1)</script>",
      type: "welcome",
    });
    const html = renderToStaticMarkup(await MailboxPage());
    expect(html).toContain("Local mailbox");
    expect(html.indexOf("Second &lt;message&gt;")).toBeGreaterThan(-1);
    expect(html.indexOf("Second &lt;message&gt;")).toBeLessThan(html.indexOf("First message"));
    // Sandboxed: no scripts, no same-origin; only a click may navigate the top window (links open the app there).
    expect(html).toContain('sandbox="allow-top-navigation-by-user-activation allow-popups allow-popups-to-escape-sandbox"');
    expect(html).not.toMatch(/sandbox="[^"]*allow-(scripts|same-origin)/);
    expect(html).toContain("&lt;base target=&quot;_top&quot;&gt;");
    expect(html).not.toContain("<script>alert(1)</script>");
  });

  it("is not found in production", async () => {
    const restore = setEnv({ APP_ENV: "production", CRON_SECRET: "cron-secret-for-test" });
    try {
      await expect(MailboxPage()).rejects.toMatchObject({ digest: expect.stringContaining("404") });
    } finally {
      restore();
    }
  });
});
