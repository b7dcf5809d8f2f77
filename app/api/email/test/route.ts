import { z } from "zod";
import { sendTestEmail } from "@/lib/email/send-test-email";
import { methods, route } from "@/lib/http/route";
import { testEmailSentResponse } from "@/lib/email/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route(
    {
      auth: "optional",
      summary: "Send a fixed test email (outside production only)",
      description: "Body { email }. 403 in production (checked first), 400 without a valid email. No session required.",
      tags: ["email"],
      errors: [403],
      consumes: "application/json",
      bodyDoc: z.object({ email: z.email() }),
      response: testEmailSentResponse,
    },
    async ({ req, user }) => sendTestEmail(await req.text(), user?.id ?? null),
  ),
});
