import { runCronNow } from "@/lib/admin/run-cron-now";
import { cronRunNowResponse, reasonBody } from "@/lib/admin/schemas";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";
export const maxDuration = 300;

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: operatorRoute(
    {
      body: reasonBody,
      summary: "Run a scheduled job now, under the same lock as the scheduler",
      response: cronRunNowResponse,
    },
    ({ operator, params, body, requestId }) => runCronNow({ operator, job: params.job, reason: body.reason, requestId }),
  ),
});
