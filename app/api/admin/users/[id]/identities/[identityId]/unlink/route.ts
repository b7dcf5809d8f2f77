import { reasonBody, unlinkIdentityResponse } from "@/lib/admin/schemas";
import { unlinkIdentity } from "@/lib/admin/unlink-identity";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: operatorRoute(
    {
      body: reasonBody,
      summary: "Unlink a sign-in identity from a user and end every session of theirs signed in until now",
      errors: [404],
      response: unlinkIdentityResponse,
    },
    ({ operator, params, body, requestId }) =>
      unlinkIdentity({ operator, userId: params.id, identityId: params.identityId, reason: body.reason, requestId }),
  ),
});
