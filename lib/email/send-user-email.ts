import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { EmailType } from "./email-types";
import { isRecipientAllowed } from "./recipient-policy";
import { sendEmail } from "./send-email";

export interface UserEmailInput {
  to: string;
  subject: string;
  html?: string;
  text?: string;
  type: EmailType;
}

/** POST /api/email/send: a signed-in user's email, subject to the recipient policy. */
export async function sendUserEmail(
  userId: string,
  input: UserEmailInput,
): Promise<{ success: true; messageId: string; emailLogId: string }> {
  const prisma = await db();
  const user = await prisma.user.findUnique({ where: { id: userId }, select: { id: true, email: true } });
  if (!user) throw new AppError("not_found", "User not found");
  if (!isRecipientAllowed(input.to, user.email)) {
    throw new AppError(
      "validation_failed",
      "Recipient not allowed: you can send only to your own account address (or to domains in EMAIL_ALLOWED_RECIPIENT_DOMAINS)",
    );
  }
  const sent = await sendEmail({ ...input, to: input.to.trim(), userId: user.id });
  return { success: true, ...sent };
}
