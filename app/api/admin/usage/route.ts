import { getUsageReport } from "@/lib/admin/get-usage-report";
import { usageQuery, usageReportResponse } from "@/lib/admin/schemas";
import { methods, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "operator",
      rateLimit: "admin",
      query: usageQuery,
      summary: "AI usage, provider cost, credits sold and margin over a period, per model and per user",
      tags: ["admin"],
      errors: [404],
      response: usageReportResponse,
    },
    ({ query }) => getUsageReport(query),
  ),
});
