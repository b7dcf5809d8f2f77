import { listMembers } from "@/lib/organisations/list-members";
import { membersResponse } from "@/lib/organisations/schemas";
import { orgRoute } from "@/lib/http/account-routes";
import { methods } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: orgRoute(
    {
      rateLimit: null,
      summary: "An organisation's members (any member; caps and spend shown to the owner and admins, and to each member for themselves)",
      response: membersResponse,
    },
    ({ user, params }) => listMembers(params.id, user.id),
  ),
});
