import { accountAdminRoute } from "@/lib/http/account-routes";
import { methods } from "@/lib/http/route";
import { recoverEndpoint } from "@/lib/outbound/resend-events";
import { recoverBody, recoverResponse } from "@/lib/outbound/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: accountAdminRoute(
    {
      rateLimit: "outbound",
      tags: ["webhook-endpoints"],
      body: recoverBody,
      summary: "Send again every failed delivery of events created since a time (after an incident); 409 while the endpoint is disabled",
      errors: [409],
      response: recoverResponse,
    },
    ({ account, params, body }) => recoverEndpoint(account.id, params.id, new Date(body.since)),
  ),
});
