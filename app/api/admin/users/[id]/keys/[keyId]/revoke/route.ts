import { reasonBody, revokeKeyResponse } from "@/lib/admin/schemas";
import { revokeUserKey } from "@/lib/admin/revoke-user-key";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: operatorRoute(
    {
      body: reasonBody,
      summary: "Revoke a user's API key (audited; it stops working on every instance within 5 seconds)",
      errors: [404],
      response: revokeKeyResponse,
    },
    ({ operator, params, body, requestId }) =>
      revokeUserKey({ operator, userId: params.id, keyId: params.keyId, reason: body.reason, requestId }),
  ),
});
