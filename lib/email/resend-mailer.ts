import { Resend } from "resend";
import { MailerError } from "./mail-failure";
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
        const { statusCode: status = null, name = null } = (error ?? {}) as { statusCode?: number | null; name?: string | null };
        // The SDK reports a network failure as an error without a status: not a refusal.
        if (status === null && name === "application_error") throw new Error(`Resend could not be reached: ${error?.message}`);
        throw new MailerError(
          `Resend rejected the message${status ? ` (HTTP ${status}${name ? `, ${name}` : ""})` : ""}: ${error?.message ?? "no message id returned"}`,
          status,
          name,
        );
      }
      return { messageId: data.id };
    },
  };
}
