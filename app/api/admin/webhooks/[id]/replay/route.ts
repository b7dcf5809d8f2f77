import { replayWebhookDelivery } from "@/lib/admin/replay-webhook-delivery";
import { reasonBody, replayResponse } from "@/lib/admin/schemas";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: operatorRoute(
    {
      body: reasonBody,
      summary: "Replay a stored delivery through the same processing as its webhook route (effects stay idempotent)",
      errors: [409],
      response: replayResponse,
    },
    ({ operator, params, body, requestId, log }) => replayWebhookDelivery({ operator, id: params.id, reason: body.reason, requestId, log }),
  ),
});
