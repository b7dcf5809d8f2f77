import { searchOrganisations } from "@/lib/admin/search-organisations";
import { organisationsListResponse, usersQuery } from "@/lib/admin/schemas";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: operatorRoute(
    {
      query: usersQuery,
      summary: "Find organisations: name or slug prefix, organisation id, or a member's email prefix",
      description:
        "Without q: every organisation, newest first; pages by nextCursor. An organisation's wallet, ledger, subscriptions, keys and members are at GET /api/admin/users/{id}, and its credits are adjusted (audited) with POST /api/admin/users/{id}/credits, as for a person.",
      response: organisationsListResponse,
    },
    ({ query }) => searchOrganisations(query),
  ),
});
