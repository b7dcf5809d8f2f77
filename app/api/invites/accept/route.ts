import { acceptInvite } from "@/lib/organisations/accept-invite";
import { acceptInviteBody, organisationResponse } from "@/lib/organisations/schemas";
import { orgRoute } from "@/lib/http/account-routes";
import { methods } from "@/lib/http/route";
import { env } from "@/lib/config/env";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: orgRoute(
    {
      rateLimit: "tokens",
      body: acceptInviteBody,
      summary: "Accept an invitation (the token of the emailed link): you join the organisation",
      description:
        "Needs a session whose verified email is the invited address (403 otherwise; the invitation stays usable). 404 when the invitation was used, withdrawn, replaced or expired.",
      response: organisationResponse,
    },
    ({ user, body }) =>
      acceptInvite(body.token, {
        userId: user.id,
        email: user.email,
        // The development sign-in vouches for nothing, but outside production it stands in for a verified address.
        emailVerified: user.emailVerified === true || (user.authMethod === "dev" && !env().isProduction),
      }),
  ),
});
