import { accountAdminRoute } from "@/lib/http/account-routes";
import { methods } from "@/lib/http/route";
import { replayDelivery } from "@/lib/outbound/manage-endpoints";
import { deliveryResponse } from "@/lib/outbound/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: accountAdminRoute(
    {
      rateLimit: "outbound",
      tags: ["webhook-endpoints"],
      summary: "Send a delivery again (a failed one, or one the receiver lost); 409 while the endpoint is disabled",
      errors: [409],
      response: deliveryResponse,
    },
    ({ account, params }) => replayDelivery(account.id, params.id, params.deliveryId),
  ),
});
