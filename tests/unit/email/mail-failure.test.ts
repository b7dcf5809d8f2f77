import { describe, expect, it } from "vitest";
import { describeMailFailure, MailerError } from "@/lib/email/mail-failure";

describe("why a mail did not go out, in an operator's terms", () => {
  it("names the setting to change for a refusal, and says a passing failure may pass", () => {
    const cases: Array<[unknown, string | null, boolean]> = [
      [new MailerError("x", 403, "invalid_api_key"), "RESEND_API_KEY", false],
      [new MailerError("x", 401, "missing_api_key"), "RESEND_API_KEY", false],
      [new MailerError("x", 401, "restricted_api_key"), "RESEND_API_KEY", false],
      [
        new MailerError("The example.com domain is not verified. Please, add and verify your domain", 403, "validation_error"),
        "EMAIL_FROM",
        false,
      ],
      [new MailerError("You can only send testing emails to your own email address", 403, "validation_error"), "EMAIL_FROM", false],
      [new MailerError("Invalid `from` field", 422, "invalid_from_address"), "EMAIL_FROM", false],
      [new MailerError("Too many requests", 429, "rate_limit_exceeded"), null, true],
      [new MailerError("quota", 429, "daily_quota_exceeded"), null, true],
      [new MailerError("boom", 500, "application_error"), null, true],
      [new Error("Resend could not be reached: Unable to fetch data"), "RESEND_BASE_URL", true],
    ];
    for (const [error, setting, transient] of cases) {
      const failure = describeMailFailure(error);
      expect(failure.setting, String((error as Error).message)).toBe(setting);
      expect(failure.transient, String((error as Error).message)).toBe(transient);
      if (setting) expect(failure.advice).toContain(setting);
    }
  });
});
