import { methods, route } from "@/lib/http/route";
import { getUserStatus } from "@/lib/account/user-status";
import { userStatusResponse } from "@/lib/users/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      account: "member",
      rateLimit: "api",
      cache: "privateFiveMinutes",
      summary: "Current user's subscription status",
      description: "Acting as an organisation (the session's active account): the organisation's subscription.",
      tags: ["user"],
      response: userStatusResponse,
    },
    ({ account }) => getUserStatus(account.id),
  ),
});
