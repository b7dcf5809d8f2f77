import { accountAdminRoute } from "@/lib/http/account-routes";
import { methods } from "@/lib/http/route";
import { rotateEndpointSecret } from "@/lib/outbound/manage-endpoints";
import { endpointCreatedResponse, rotateSecretBody } from "@/lib/outbound/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: accountAdminRoute(
    {
      rateLimit: "writes",
      tags: ["webhook-endpoints"],
      body: rotateSecretBody,
      summary:
        "A new signing secret for an endpoint (in this answer); the old one keeps signing beside it for overlapHours (default 24, 0: stops at once)",
      response: endpointCreatedResponse,
    },
    ({ account, params, body }) => rotateEndpointSecret(account.id, params.id, body ?? {}),
  ),
});
