import { accountAdminRoute } from "@/lib/http/account-routes";
import { methods } from "@/lib/http/route";
import { createEndpoint, listEndpoints } from "@/lib/outbound/manage-endpoints";
import { createEndpointBody, endpointCreatedResponse, endpointsResponse } from "@/lib/outbound/schemas";

export const dynamic = "force-dynamic";

const tags = ["webhook-endpoints"];

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: accountAdminRoute(
    { rateLimit: null, tags, summary: "The account's outbound webhook endpoints (never their secrets)", response: endpointsResponse },
    ({ account }) => listEndpoints(account.id),
  ),
  POST: accountAdminRoute(
    {
      rateLimit: "writes",
      tags,
      body: createEndpointBody,
      summary: "Register an endpoint for outbound webhooks: its URL, the events it wants; the signing secret is in this answer",
      description:
        "In production the URL must be https and its host must resolve to public addresses only (checked here and at every delivery: no private, loopback or link-local address). Deliveries are signed by the Standard Webhooks scheme (webhook-id, webhook-timestamp, webhook-signature). At most 10 endpoints per account.",
      response: endpointCreatedResponse,
    },
    ({ user, account, body }) => createEndpoint(account.id, user.id, body),
  ),
});
