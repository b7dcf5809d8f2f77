import { accountAdminRoute } from "@/lib/http/account-routes";
import { methods } from "@/lib/http/route";
import { rotateEndpointSecret } from "@/lib/outbound/manage-endpoints";
import { endpointCreatedResponse } from "@/lib/outbound/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: accountAdminRoute(
    {
      rateLimit: "writes",
      tags: ["webhook-endpoints"],
      summary: "A new signing secret for an endpoint (the old one stops signing at once); the secret is in this answer",
      response: endpointCreatedResponse,
    },
    ({ account, params }) => rotateEndpointSecret(account.id, params.id),
  ),
});
