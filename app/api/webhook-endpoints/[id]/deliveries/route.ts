import { z } from "zod";
import { accountAdminRoute } from "@/lib/http/account-routes";
import { methods } from "@/lib/http/route";
import { listDeliveries } from "@/lib/outbound/manage-endpoints";
import { deliveriesResponse } from "@/lib/outbound/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: accountAdminRoute(
    {
      rateLimit: null,
      tags: ["webhook-endpoints"],
      query: z.object({ status: z.enum(["pending", "delivered", "failed"], { error: "must be pending, delivered or failed" }).optional() }),
      summary: "An endpoint's delivery log, newest first (at most 100): status, attempts, the receiver's last answer, the payload",
      response: deliveriesResponse,
    },
    ({ account, params, query }) => listDeliveries(account.id, params.id, query.status),
  ),
});
