import { describe, expect, it } from "vitest";
import { safeRedirectPath, sameOriginUrl } from "@/lib/config/public-url";

describe("redirect targets (lib/config/public-url.ts)", () => {
  const base = "https://app.example.com";

  it("keeps this site's paths and same-origin URLs", () => {
    expect(safeRedirectPath("/dashboard/credits?purchase=success#top")).toBe("/dashboard/credits?purchase=success#top");
    expect(sameOriginUrl("/dashboard", base)).toBe("https://app.example.com/dashboard");
    expect(sameOriginUrl("https://app.example.com/x", base)).toBe("https://app.example.com/x");
  });

  it.each([
    "//evil.example/x",
    "/\\evil.example/x",
    "/%5Cevil.example/x",
    "/%09/evil.example/x",
    "/\t/evil.example/x",
    "/%0a/evil.example",
    "https://evil.example/",
    "javascript:alert(1)",
    "\\\\evil.example",
    "http://app.example.com.evil.example/",
  ])("refuses %j (the fallback, or null)", (candidate) => {
    expect(safeRedirectPath(candidate)).toBe("/dashboard");
    expect(sameOriginUrl(candidate, base)).toBeNull();
  });

  it("falls back when there is no target", () => {
    expect(safeRedirectPath(undefined)).toBe("/dashboard");
    expect(safeRedirectPath("", "/")).toBe("/");
  });
});
