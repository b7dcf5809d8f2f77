import { lockResponse, reasonBody } from "@/lib/admin/schemas";
import { setUserLock } from "@/lib/admin/set-user-lock";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: operatorRoute(
    {
      body: reasonBody,
      summary: "Unlock a user",
      description:
        "Sign-in and writes work again at once on this instance and within 5 seconds on the others; the account's API keys answer again (a lock suspends them, it does not revoke them). Unlocking an unlocked user changes nothing (changed: false). Audited with its reason.",
      response: lockResponse,
    },
    ({ operator, params, body, requestId }) => setUserLock({ operator, userId: params.id, locked: false, reason: body.reason, requestId }),
  ),
});
