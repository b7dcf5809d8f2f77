import { removeMember, updateMember } from "@/lib/organisations/update-member";
import { memberResponse, updateMemberBody } from "@/lib/organisations/schemas";
import { orgRoute } from "@/lib/http/account-routes";
import { methods } from "@/lib/http/route";
import { z } from "zod";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  PATCH: orgRoute(
    {
      rateLimit: "writes",
      body: updateMemberBody,
      summary: "Change a member's role (admin or member) or their daily and monthly caps (owner and admins)",
      description:
        "Caps are credits per UTC day and per calendar month; null removes one. They hold from the next charge on every instance (checked in the charge's own statement). The owner's role changes only by a transfer (409); only the owner may change the owner's caps.",
      errors: [409],
      response: memberResponse,
    },
    ({ user, params, body }) => updateMember(params.id, user.id, params.userId, body),
  ),
  DELETE: orgRoute(
    {
      rateLimit: "writes",
      summary: "Remove a member (owner and admins; never the owner), or leave (your own user id)",
      description:
        "The keys the person made for the organisation are revoked with it; their sessions lose the organisation within 5 seconds on every instance. The owner leaves only after a transfer (409).",
      errors: [409],
      response: z.object({ removed: z.literal(true) }),
    },
    ({ user, params }) => removeMember(params.id, user.id, params.userId),
  ),
});
