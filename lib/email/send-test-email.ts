import { z } from "zod";
import { env } from "@/lib/config/env";
import { AppError } from "@/lib/errors";
import { sendEmail } from "./send-email";

const testEmailBody = z.object({
  email: z.email({ error: (iss) => (iss.input === undefined ? "email is required" : "email must be an email address") }),
});

/**
 * POST /api/email/test: sends a fixed test message, outside production only (403 in production,
 * checked before the body). Any recipient: the content is fixed, so it cannot relay anything.
 */
export async function sendTestEmail(rawBody: string, userId: string | null) {
  if (env().isProduction) throw new AppError("forbidden", "The test email endpoint is available only outside production");
  let body: unknown = undefined;
  if (rawBody.trim() !== "") {
    try {
      body = JSON.parse(rawBody);
    } catch {
      throw new AppError("validation_failed", "Invalid body: not valid JSON");
    }
  }
  const parsed = testEmailBody.safeParse(body ?? {});
  if (!parsed.success) throw new AppError("validation_failed", parsed.error.issues[0]?.message ?? "email is required");
  const sentAt = new Date().toISOString();
  const { messageId, emailLogId } = await sendEmail({
    to: parsed.data.email,
    subject: "Test email",
    text: `This is a test email sent at ${sentAt}. If you can read it, email delivery works.`,
    html: `<p>This is a test email sent at ${sentAt}.</p><p>If you can read it, email delivery works.</p>`,
    type: "test",
    userId,
  });
  return { success: true, messageId, emailLogId, provider: env().RESEND_API_KEY ? ("resend" as const) : ("local" as const) };
}
