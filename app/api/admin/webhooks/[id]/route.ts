import { getWebhookDelivery } from "@/lib/admin/get-webhook-delivery";
import { deliveryDetailResponse } from "@/lib/admin/schemas";
import { methods, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    { auth: "operator", rateLimit: "admin", summary: "A webhook delivery with its stored payload", tags: ["admin"], response: deliveryDetailResponse },
    ({ params }) => getWebhookDelivery(params.id),
  ),
});
