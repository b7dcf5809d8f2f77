import { revokeInvite } from "@/lib/organisations/invite-member";
import { inviteResponse } from "@/lib/organisations/schemas";
import { orgRoute } from "@/lib/http/account-routes";
import { methods } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  DELETE: orgRoute(
    { rateLimit: "writes", summary: "Withdraw an invitation (owner and admins); its link stops working", response: inviteResponse },
    ({ user, params }) => revokeInvite(params.id, user.id, params.inviteId),
  ),
});
