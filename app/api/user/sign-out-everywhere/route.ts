import { methods, route } from "@/lib/http/route";
import { signOutEverywhere } from "@/lib/auth/revoke-session";
import { signOutEverywhereResponse } from "@/lib/users/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route(
    {
      auth: "session",
      rateLimit: "writes",
      summary: "End every session of the current user, this one included",
      description:
        "Every session signed in until now ends on the next request (on other instances within seconds), whatever device holds it; " +
        "sign in again afterwards. API keys are not affected: revoke them on the dashboard's API keys page.",
      tags: ["user"],
      response: signOutEverywhereResponse,
    },
    ({ user }) => signOutEverywhere(user.id),
  ),
});
