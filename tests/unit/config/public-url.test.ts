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

  // What a browser would resolve to another host once the path's dot segments are removed.
  it.each([
    "/.//evil.example/x",
    "/..//evil.example/x",
    "/%2e//evil.example/x",
    "/%2E%2E//evil.example/x",
    "/dashboard/..//evil.example/x",
    "/dashboard/../..//evil.example/x",
    "/./%2e/.//evil.example",
    "///evil.example/x",
    "/.\\evil.example/x",
    "/%2e/%5c/evil.example",
    "/a/.././/evil.example",
  ])("never returns a path a browser reads as another host: %j", (candidate) => {
    const path = safeRedirectPath(candidate);
    expect(path.startsWith("//") || path.startsWith("/\\")).toBe(false);
    expect(new URL(path, base).origin).toBe(base);
    // The sign-in page navigates with it as is: from a page of this site it stays on this site.
    expect(new URL(path, `${base}/signin`).host).toBe("app.example.com");
  });

  it("falls back when there is no target", () => {
    expect(safeRedirectPath(undefined)).toBe("/dashboard");
    expect(safeRedirectPath("", "/")).toBe("/");
  });
});
