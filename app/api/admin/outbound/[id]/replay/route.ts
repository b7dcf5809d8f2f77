import { replayOutboundDelivery } from "@/lib/admin/list-outbound-deliveries";
import { outboundReplayResponse, reasonBody } from "@/lib/admin/schemas";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: operatorRoute(
    {
      body: reasonBody,
      summary: "Send an outbound delivery again (audited); 409 while its endpoint is disabled",
      errors: [409],
      response: outboundReplayResponse,
    },
    ({ operator, params, body, requestId }) => replayOutboundDelivery({ operator, id: params.id, reason: body.reason, requestId }),
  ),
});
