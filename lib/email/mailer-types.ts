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
