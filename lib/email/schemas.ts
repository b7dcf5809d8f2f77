import { z } from "zod";

/** POST /api/email/send: `messageId` is the provider's id (the one its delivery webhooks carry). */
export const emailSentResponse = z.object({ success: z.boolean(), messageId: z.string(), emailLogId: z.string() });

/** POST /api/email/test (outside production): which transport took it. */
export const testEmailSentResponse = emailSentResponse.extend({ provider: z.enum(["resend", "local"]) });
