import { methods, route } from "@/lib/http/route";
import { getUserStatus } from "@/lib/account/user-status";
import { userStatusResponse } from "@/lib/users/schemas";

export const dynamic = "force-dynamic";


export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      rateLimit: "api",
      cache: "privateFiveMinutes",
      summary: "Current user's subscription status",
      tags: ["user"],
      response: userStatusResponse,
    },
    ({ user }) => getUserStatus(user.id),
  ),
});
