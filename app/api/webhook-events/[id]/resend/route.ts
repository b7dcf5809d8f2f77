import { accountAdminRoute } from "@/lib/http/account-routes";
import { methods } from "@/lib/http/route";
import { resendEvent } from "@/lib/outbound/resend-events";
import { eventResponse } from "@/lib/outbound/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: accountAdminRoute(
    {
      rateLimit: "outbound",
      tags: ["webhook-endpoints"],
      summary: "Send an event again to every enabled endpoint it went to (in each endpoint's order)",
      response: eventResponse,
    },
    ({ account, params }) => resendEvent(account.id, params.id),
  ),
});
