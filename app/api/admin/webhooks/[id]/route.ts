import { getWebhookDelivery } from "@/lib/admin/get-webhook-delivery";
import { deliveryDetailResponse } from "@/lib/admin/schemas";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: operatorRoute({ summary: "A webhook delivery with its stored payload", response: deliveryDetailResponse }, ({ params }) =>
    getWebhookDelivery(params.id),
  ),
});
