import { lockResponse, reasonBody } from "@/lib/admin/schemas";
import { setUserLock } from "@/lib/admin/set-user-lock";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: operatorRoute(
    {
      body: reasonBody,
      summary: "Unlock a user",
      response: lockResponse,
    },
    ({ operator, params, body, requestId }) => setUserLock({ operator, userId: params.id, locked: false, reason: body.reason, requestId }),
  ),
});
