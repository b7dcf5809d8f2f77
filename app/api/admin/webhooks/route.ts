import { listWebhookDeliveries } from "@/lib/admin/list-webhook-deliveries";
import { deliveriesListResponse, webhooksQuery } from "@/lib/admin/schemas";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: operatorRoute(
    {
      query: webhooksQuery,
      summary: "Webhook deliveries by source, status, type or a buyer email / user / object id, newest first",
      response: deliveriesListResponse,
    },
    ({ query }) => listWebhookDeliveries(query),
  ),
});
