import { getOperationsSummary } from "@/lib/admin/get-operations-summary";
import { summaryResponse } from "@/lib/admin/schemas";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: operatorRoute(
    {
      summary: "Users by tier, subscriptions, credits granted/used today and this month, failed webhooks and cron runs",
      response: summaryResponse,
    },
    () => getOperationsSummary(),
  ),
});
