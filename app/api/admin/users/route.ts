import { searchUsers } from "@/lib/admin/search-users";
import { usersListResponse, usersQuery } from "@/lib/admin/schemas";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: operatorRoute(
    {
      query: usersQuery,
      summary: "Find users: email prefix, user id, identity-provider id, Lemon Squeezy customer or subscription id",
      description:
        "Without q: every user, newest first. Each row has the tier, the current subscription's status and both credit balances; pages by nextCursor.",
      response: usersListResponse,
    },
    ({ query }) => searchUsers(query),
  ),
});
