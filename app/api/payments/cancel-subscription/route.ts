import { publicRequestUrl } from "@/lib/config/public-url";
import { cancelSubscription } from "@/lib/billing/subscriptions/cancel-subscription";
import { methods, paymentRoute } from "@/lib/http/route";
import { cancelSubscriptionResponse } from "@/lib/billing/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: paymentRoute(
    {
      summary: "Cancel the subscription at the end of the current period",
      response: cancelSubscriptionResponse,
      errors: [404],
    },
    ({ account, req }) => cancelSubscription({ userId: account.id, requestUrl: publicRequestUrl(req) }),
  ),
});
