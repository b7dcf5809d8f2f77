import { listOutboundDeliveries } from "@/lib/admin/list-outbound-deliveries";
import { outboundListResponse, outboundQuery } from "@/lib/admin/schemas";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: operatorRoute(
    {
      query: outboundQuery,
      summary: "Outbound webhook deliveries and alert emails, newest first, by status or account",
      response: outboundListResponse,
    },
    ({ query }) => listOutboundDeliveries(query),
  ),
});
