import { env } from "@/lib/config/env";

/** One outgoing message, already addressed. */
export interface OutgoingEmail {
  from: string;
  to: string;
  subject: string;
  html?: string;
  text?: string;
  /** Our email log id: the provider's idempotency key and the local mailbox's file name. */
  emailLogId: string;
}

export type MailerKind = "resend" | "local";

/** A mail transport: Resend when RESEND_API_KEY is set, otherwise the local mailbox. */
export interface Mailer {
  kind: MailerKind;
  /** Sends and returns the provider's message id (the id its delivery webhooks carry). Throws on failure. */
  send(email: OutgoingEmail): Promise<{ messageId: string }>;
}

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
