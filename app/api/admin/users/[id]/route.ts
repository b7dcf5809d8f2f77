import { getUserOverview } from "@/lib/admin/get-user-overview";
import { userOverviewResponse } from "@/lib/admin/schemas";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: operatorRoute(
    {
      summary: "A user: subscriptions with state history, credit buckets, last ledger rows, counts, lock, related webhook deliveries",
      response: userOverviewResponse,
    },
    ({ params }) => getUserOverview(params.id),
  ),
});
