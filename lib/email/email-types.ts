/**
 * The documented set of email types (email_logs.type). `POST /api/email/send` accepts any of them;
 * system code uses the specific ones (the payments domain sends `payment_failed`, ...).
 */
export const EMAIL_TYPES = [
  "welcome",
  "notification",
  "payment_failed",
  "payment_recovered",
  "receipt",
  "subscription",
  "trial_ending",
  "test",
  "sign_in",
  "invitation",
  "alert",
] as const;

export type EmailType = (typeof EMAIL_TYPES)[number];

export function isEmailType(value: unknown): value is EmailType {
  return typeof value === "string" && (EMAIL_TYPES as readonly string[]).includes(value);
}
