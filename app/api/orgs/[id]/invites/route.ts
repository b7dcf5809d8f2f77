import { inviteMember, listInvites } from "@/lib/organisations/invite-member";
import { createInviteBody, inviteResponse, invitesResponse } from "@/lib/organisations/schemas";
import { orgRoute } from "@/lib/http/account-routes";
import { methods } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: orgRoute(
    { rateLimit: null, summary: "An organisation's invitations, newest first (owner and admins)", response: invitesResponse },
    ({ user, params }) => listInvites(params.id, user.id),
  ),
  POST: orgRoute(
    {
      rateLimit: "writes",
      body: createInviteBody,
      summary: "Invite an address by email (owner and admins): a link that works once, for 7 days, for that address only",
      description:
        "A new invitation to the same address replaces the waiting one. Accepting needs a session whose verified email is the invited address (POST /api/invites/accept). 409 when the address is already a member; 503 when the email cannot be sent (nothing is kept).",
      errors: [409, 429, 503],
      response: inviteResponse,
    },
    ({ user, params, body }) => inviteMember(params.id, user.id, body),
  ),
});
