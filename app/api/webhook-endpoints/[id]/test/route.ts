import { accountAdminRoute } from "@/lib/http/account-routes";
import { methods } from "@/lib/http/route";
import { sendTestEvent } from "@/lib/outbound/manage-endpoints";
import { deliveryResponse } from "@/lib/outbound/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: accountAdminRoute(
    {
      rateLimit: "outbound",
      tags: ["webhook-endpoints"],
      summary: "Send a webhook.test event to this endpoint (it goes out at once; its delivery is answered pending)",
      response: deliveryResponse,
      errors: [404, 409],
    },
    ({ account, params }) => sendTestEvent(account.id, params.id),
  ),
});
