import { getCronOverview } from "@/lib/admin/get-cron-overview";
import { cronOverviewResponse, cronQuery } from "@/lib/admin/schemas";
import { methods, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    { auth: "operator", rateLimit: "admin", query: cronQuery, summary: "Scheduled jobs: schedule, lock and recent runs", tags: ["admin"], response: cronOverviewResponse },
    ({ query }) => getCronOverview(query),
  ),
});
