import { env } from "@/lib/config/env";
import type { Mailer } from "./mailer-types";

export type { Mailer, MailerKind, OutgoingEmail } from "./mailer-types";

/** Sender used when EMAIL_FROM is unset. */
export const DEFAULT_EMAIL_FROM = "App <no-reply@localhost>";

export function emailFrom(): string {
  return env().EMAIL_FROM ?? DEFAULT_EMAIL_FROM;
}

/** The configured transport (adapters are loaded lazily so the vendor SDK is only imported when used). */
export async function mailer(): Promise<Mailer> {
  const e = env();
  if (e.RESEND_API_KEY) {
    const { resendMailer } = await import("./resend-mailer");
    return resendMailer(e.RESEND_API_KEY, e.RESEND_BASE_URL);
  }
  const { localMailbox } = await import("./local-mailbox");
  return localMailbox();
}
