import { z } from "zod";
import { accountAdminRoute } from "@/lib/http/account-routes";
import { methods } from "@/lib/http/route";
import { deleteEndpoint, updateEndpoint } from "@/lib/outbound/manage-endpoints";
import { endpointResponse, updateEndpointBody } from "@/lib/outbound/schemas";

export const dynamic = "force-dynamic";

const tags = ["webhook-endpoints"];

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  PATCH: accountAdminRoute(
    {
      rateLimit: "writes",
      tags,
      body: updateEndpointBody,
      summary: "Change an endpoint's URL, events or description, or enable / disable it (enabling sends what waited)",
      response: endpointResponse,
    },
    ({ account, params, body }) => updateEndpoint(account.id, params.id, body),
  ),
  DELETE: accountAdminRoute(
    { rateLimit: "writes", tags, summary: "Delete an endpoint and its delivery log", response: z.object({ deleted: z.literal(true) }) },
    ({ account, params }) => deleteEndpoint(account.id, params.id),
  ),
});
