import { z } from "zod";
import { requestEmailLink } from "@/lib/auth/email-link";
import { env, signInMethods } from "@/lib/config/env";
import { mailedLinkBase } from "@/lib/config/public-url";
import { methods, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

const body = z.object({
  email: z.email({ error: "must be an email address" }).max(320),
  callbackUrl: z
    .string()
    .max(2000)
    .optional()
    .meta({ description: "where to go after signing in (a path of this site; anything else becomes /dashboard)" }),
});

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route(
    {
      auth: "none",
      feature: () => signInMethods(env()).includes("email"),
      rateLimit: "email",
      body,
      bodyFormat: "form",
      summary: "Email me a sign-in link (it works once, for 15 minutes)",
      description:
        "Answers the same whether or not the address has an account (a first sign-in creates it). Limits: 5 links per address and 10 per client address per hour (429 with Retry-After). The link opens /signin/email, whose button signs in through next-auth's `email-link` provider.",
      tags: ["auth"],
      errors: [503],
      response: z.object({ sent: z.literal(true), message: z.string() }),
    },
    async ({ body }) => {
      await requestEmailLink({ email: body.email, callbackUrl: body.callbackUrl, baseUrl: mailedLinkBase() });
      return {
        sent: true as const,
        message: "If this address can receive email, a sign-in link is on its way. It works once, for 15 minutes.",
      };
    },
  ),
});
