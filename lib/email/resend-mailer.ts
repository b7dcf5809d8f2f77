import { Resend } from "resend";
import type { Mailer } from "./mailer-types";

/** Resend adapter (the only file importing the SDK). `baseUrl` (RESEND_BASE_URL) points it at a stub in tests. */
export function resendMailer(apiKey: string, baseUrl?: string): Mailer {
  const client = new Resend(apiKey, baseUrl ? { baseUrl: baseUrl.replace(/\/+$/, "") } : undefined);
  return {
    kind: "resend",
    async send(email) {
      const payload = { from: email.from, to: [email.to], subject: email.subject, html: email.html, text: email.text };
      const { data, error } = await client.emails.send(payload as never, { idempotencyKey: `email-log-${email.emailLogId}` });
      if (error || !data?.id) {
        const status = (error as { statusCode?: number | null } | null)?.statusCode;
        throw new Error(`Resend rejected the message${status ? ` (HTTP ${status})` : ""}: ${error?.message ?? "no message id returned"}`);
      }
      return { messageId: data.id };
    },
  };
}
