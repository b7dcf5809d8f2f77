import { getUsageReport } from "@/lib/admin/get-usage-report";
import { usageQuery, usageReportResponse } from "@/lib/admin/schemas";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: operatorRoute(
    {
      query: usageQuery,
      summary: "AI usage, provider cost, credits sold and margin over a period, per model and per user",
      errors: [404],
      response: usageReportResponse,
    },
    ({ query }) => getUsageReport(query),
  ),
});
