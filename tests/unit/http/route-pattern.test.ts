import { describe, expect, it } from "vitest";
import { routePattern } from "@/lib/http/handler";

describe("route patterns for metric labels", () => {
  it("put parameter names back in place of their values, raw or encoded", () => {
    expect(routePattern("/api/health", {})).toBe("/api/health");
    expect(routePattern("/api/files/abc-123", { id: "abc-123" })).toBe("/api/files/{id}");
    expect(routePattern("/api/files/abc/content", { id: "abc" })).toBe("/api/files/{id}/content");
    expect(routePattern("/api/ai/rag/conversations/a%20b", { id: "a b" })).toBe("/api/ai/rag/conversations/{id}");
    expect(routePattern("/api/auth/callback/dev", { nextauth: "callback/dev" })).toBe("/api/auth/{nextauth}");
  });

  it("never fall back to a path that carries an id", () => {
    expect(routePattern("/api/files/a%2Fb", { id: "a/b" })).toBe("(unmatched)");
    // An unpaired surrogate (no URL encoding exists for it) neither throws nor leaks.
    expect(routePattern("/api/files/%ED%A0%80", { id: "\uD800" })).toBe("(unmatched)");
  });
});
