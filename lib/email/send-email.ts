import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { EmailType } from "./email-types";
import { describeMailFailure } from "./mail-failure";
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
 * provider refuses or cannot be reached (the log row is then `failed`; one error log line names the
 * setting to check; the error's reason says whether the cause may pass: "mail_transient", or
 * "mail_misconfigured" when an operator must change something).
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
    const failure =
      transport.kind === "resend"
        ? describeMailFailure(error)
        : { setting: "DATA_DIR", advice: "the local mailbox could not write its file: check that DATA_DIR is writable", transient: false };
    await prisma.emailLog.update({
      where: { id: entry.id },
      data: { status: "failed", error: `${failure.advice} (${reason})`.slice(0, 2000) },
    });
    log.error(`email not sent: ${failure.advice}`, {
      emailLogId: entry.id,
      provider: transport.kind,
      type: input.type,
      setting: failure.setting,
      error: reason,
    });
    throw new AppError("upstream_failed", "The email could not be sent", {
      cause: error,
      reason: failure.transient ? "mail_transient" : "mail_misconfigured",
    });
  }
  await prisma.emailLog.update({ where: { id: entry.id }, data: { status: "sent", providerMessageId: messageId } });
  log.info("email sent", { emailLogId: entry.id, provider: transport.kind, type: input.type });
  return { messageId, emailLogId: entry.id };
}
