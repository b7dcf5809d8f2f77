import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { EmailType } from "./email-types";
import { emailFrom, mailer } from "./mailer";

export type { EmailType } from "./email-types";

export interface SendEmailInput {
  to: string;
  subject: string;
  html?: string;
  text?: string;
  type: EmailType;
  userId?: string | null;
}

/**
 * Sends one transactional email and records it in email_logs: the row is written `queued`, then
 * becomes `sent` (with the provider's message id) or `failed` (with the reason). Goes through Resend
 * when RESEND_API_KEY is set, else into the local mailbox. Recipient policy is the caller's job (the
 * send endpoint enforces it); this function sends to whatever it is given.
 *
 * Throws AppError("validation_failed") without html or text, AppError("upstream_failed") when the
 * provider refuses or cannot be reached (the log row is then `failed`).
 */
export async function sendEmail(input: SendEmailInput): Promise<{ messageId: string; emailLogId: string }> {
  if (!input.html && !input.text) throw new AppError("validation_failed", "An email needs html or text content");
  const transport = await mailer();
  const from = emailFrom();
  const prisma = await db();
  const entry = await prisma.emailLog.create({
    data: {
      userId: input.userId ?? null,
      to: input.to,
      from,
      subject: input.subject,
      type: input.type,
      status: "queued",
      provider: transport.kind,
    },
  });
  let messageId: string;
  try {
    ({ messageId } = await transport.send({
      from,
      to: input.to,
      subject: input.subject,
      html: input.html,
      text: input.text,
      emailLogId: entry.id,
    }));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    await prisma.emailLog.update({ where: { id: entry.id }, data: { status: "failed", error: reason.slice(0, 2000) } });
    log.error("email send failed", { emailLogId: entry.id, provider: transport.kind, type: input.type, error: reason });
    throw new AppError("upstream_failed", "The email could not be sent", { cause: error });
  }
  await prisma.emailLog.update({ where: { id: entry.id }, data: { status: "sent", providerMessageId: messageId } });
  log.info("email sent", { emailLogId: entry.id, provider: transport.kind, type: input.type });
  return { messageId, emailLogId: entry.id };
}
