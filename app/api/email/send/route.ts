import { z } from "zod";
import { EMAIL_TYPES } from "@/lib/email/email-types";
import { sendUserEmail } from "@/lib/email/send-user-email";
import { methods, route } from "@/lib/http/route";
import { emailSentResponse } from "@/lib/email/schemas";

export const dynamic = "force-dynamic";

const sendBody = z
  .object({
    to: z.email({ error: (iss) => (iss.input === undefined ? "is required" : "must be an email address") }).max(254),
    subject: z
      .string({ error: (iss) => (iss.input === undefined ? "is required" : "must be a string") })
      .trim()
      .min(1, "is required")
      .max(998)
      .refine((s) => !/[\r\n]/.test(s), "must be one line"),
    html: z.string().max(1_000_000).optional(),
    text: z.string().max(1_000_000).optional(),
    // Optional (the body lists it, only html or text is required); unknown values stay a 400.
    type: z.enum(EMAIL_TYPES, { error: `must be one of ${EMAIL_TYPES.join(", ")}` }).default("notification"),
  })
  .refine((b) => Boolean(b.html?.trim() || b.text?.trim()), { message: "html or text is required", path: ["html"] });

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route(
    {
      auth: "session",
      rateLimit: "email",
      body: sendBody,
      summary: "Send a transactional email",
      description:
        "Recipient policy: only the signed-in user's own address, or a domain listed in EMAIL_ALLOWED_RECIPIENT_DOMAINS (400 otherwise). Every message gets an email log row (queued → sent | failed, then delivered/bounced/complained from the email webhook).",
      tags: ["email"],
      errors: [404],
      response: emailSentResponse,
    },
    ({ user, body }) => sendUserEmail(user.id, body),
  ),
});
