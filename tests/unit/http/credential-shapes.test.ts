import { describe, expect, it } from "vitest";
import { withoutCredentials } from "@/lib/credential-shapes";
import { redactSecrets } from "@/lib/tracing/redact-secrets";

describe("credential-shaped values", () => {
  it.each([
    ["our key", `sk-${"A1b2C3d4E5".repeat(4)}xyz`],
    ["an OpenAI project key", `sk-proj-${"abcDEF123_".repeat(5)}`],
    ["an Anthropic key", `sk-ant-api03-${"Zz9Yy8Xx7".repeat(5)}`],
    ["a Google API key", "AIzaSyD-0123456789abcdefghijklmnopqrstu"],
    ["a JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"],
    ["a GitHub token", `ghp_${"0123456789abcdefghij".repeat(2)}`],
    ["a webhook secret", `whsec_${"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".slice(0, 24)}`],
    ["a Bearer credential", "Bearer abc.def-ghi_jkl.mno"],
    ["a long hex token", "9f".repeat(32)],
  ])("replaces %s wherever it stands in a text", (_, value) => {
    const out = withoutCredentials(`Invalid body: model: ${value} is not offered`);
    expect(out).not.toContain(value);
    expect(out).toContain("[redacted]");
  });

  it.each([
    "Not found: no API endpoint at /api/files/0b1c2d3e-4f50-4617-8a9b-0c1d2e3f4a5b/download",
    "Invalid body: messages.0.content: must be 1 to 100000 characters",
    "The model `gpt-4o-mini-2024-07-18` does not exist",
    "This API key may not use the model `claude-sonnet-4-5`; it may use gpt-4o-mini, text-embedding-3-small",
    "Invalid or missing cron bearer token",
  ])("leaves a text without one as it is: %s", (text) => {
    expect(withoutCredentials(text)).toBe(text);
  });

  it("redacts credential query values and shapes in span names and attributes", () => {
    expect(redactSecrets("GET /signin/email?token=abc123&email=a%40b.c")).toBe("GET /signin/email?token=[redacted]&email=a%40b.c");
    expect(redactSecrets("/api/auth/callback/github?code=xyz&state=s")).toBe("/api/auth/callback/github?code=[redacted]&state=s");
    expect(redactSecrets(`/v1/models?api_key=sk-${"a".repeat(43)}`)).not.toContain("aaaaaaaa");
  });
});
