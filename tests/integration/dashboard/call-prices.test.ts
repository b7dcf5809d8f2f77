import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import ChatPage from "@/app/dashboard/ai/page";
import BatchChatPage from "@/app/dashboard/ai/batch/page";
import ContentPage from "@/app/dashboard/ai/content/page";
import ImagePage from "@/app/dashboard/ai/image/page";
import SpeechPage from "@/app/dashboard/ai/speech/page";
import { setEnv } from "@/tests/helpers/env";

/**
 * What the dashboard's AI pages tell a user a call costs, rendered as the server renders them: SPEC's
 * fixed credits in flat pricing, never a fixed number in metered pricing (the call is charged by what
 * it used), nothing about credits in classic SaaS mode.
 */
const pages = { chat: ChatPage, batch: BatchChatPage, content: ContentPage, image: ImagePage, speech: SpeechPage };
const render = (name: keyof typeof pages) => renderToStaticMarkup(pages[name]());

function withEnv<T>(vars: Record<string, string>, fn: () => T): T {
  const restore = setEnv(vars);
  try {
    return fn();
  } finally {
    restore();
  }
}

describe("the prices the dashboard's AI pages show", () => {
  it("flat pricing: SPEC's fixed credits on every page", () => {
    withEnv({ AI_PRICING_MODE: "flat" }, () => {
      expect(render("chat")).toContain("Each message costs 20 credits, or 30 when the conversation includes an image.");
      expect(render("batch")).toContain("Each answer costs 15 credits");
      expect(render("content")).toContain("Each generation costs 25 credits.");
      expect(render("content")).toContain("Generate (25 credits)");
      expect(render("image")).toContain("Each image costs 80 credits.");
      expect(render("speech")).toContain("Each transcription costs 20 credits.");
    });
  });

  it("metered pricing: no fixed number anywhere; each page says the call is charged by what it uses", () => {
    withEnv({ AI_PRICING_MODE: "metered" }, () => {
      for (const name of Object.keys(pages) as Array<keyof typeof pages>) {
        const html = render(name);
        expect(html, name).not.toMatch(/\d+ credits/);
        expect(html, name).toMatch(/charged (in credits )?by (what it uses|the tokens it used)/);
      }
      expect(render("image")).toContain("Generate</button>");
    });
  });

  it("classic SaaS: no credits on any page", () => {
    withEnv({ PUBLIC_PRICING_MODEL: "classic_saas" }, () => {
      for (const name of Object.keys(pages) as Array<keyof typeof pages>) expect(render(name), name).not.toMatch(/credit/i);
    });
  });
});
