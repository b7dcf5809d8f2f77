import { describe, expect, it } from "vitest";
import { EMAIL_TYPES, isEmailType } from "@/lib/email/email-types";
import { isRecipientAllowed } from "@/lib/email/recipient-policy";
import { setEnv } from "@/tests/helpers/env";

describe("recipient policy", () => {
  it("allows only the user's own address by default", () => {
    expect(isRecipientAllowed("Me@Example.com", "me@example.com")).toBe(true);
    expect(isRecipientAllowed("other@example.com", "me@example.com")).toBe(false);
    expect(isRecipientAllowed("me@example.com", null)).toBe(false);
  });

  it("allows exact domains from EMAIL_ALLOWED_RECIPIENT_DOMAINS", () => {
    const restore = setEnv({ EMAIL_ALLOWED_RECIPIENT_DOMAINS: " Example.org ,@team.test" });
    try {
      expect(isRecipientAllowed("a@example.org", null)).toBe(true);
      expect(isRecipientAllowed("b@TEAM.test", null)).toBe(true);
      expect(isRecipientAllowed("c@sub.example.org", null)).toBe(false);
      expect(isRecipientAllowed("c@example.org.evil.test", null)).toBe(false);
    } finally {
      restore();
    }
  });
});

describe("email types", () => {
  it("documents the set", () => {
    expect(EMAIL_TYPES).toContain("payment_failed");
    expect(isEmailType("welcome")).toBe(true);
    expect(isEmailType("spam")).toBe(false);
  });
});
