import { getCronOverview } from "@/lib/admin/get-cron-overview";
import { cronOverviewResponse, cronQuery } from "@/lib/admin/schemas";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: operatorRoute(
    { query: cronQuery, summary: "Scheduled jobs: schedule, lock and recent runs", response: cronOverviewResponse },
    ({ query }) => getCronOverview(query),
  ),
});
