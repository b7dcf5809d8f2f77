import { getSubscriptionDetails } from "@/lib/billing/subscriptions/subscription-details";
import { methods, route } from "@/lib/http/route";
import { subscriptionDetailsResponse } from "@/lib/billing/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      account: "member",
      cache: "privateMinute",
      summary: "Subscription details, plan and its limits",
      tags: ["payments"],
      errors: [404],
      response: subscriptionDetailsResponse,
    },
    ({ account }) => getSubscriptionDetails(account.id),
  ),
});
