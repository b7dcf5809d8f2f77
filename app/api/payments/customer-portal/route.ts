import { publicRequestUrl } from "@/lib/config/public-url";
import { customerPortalUrl } from "@/lib/billing/subscriptions/customer-portal-url";
import { methods, paymentRoute } from "@/lib/http/route";
import { customerPortalResponse } from "@/lib/billing/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: paymentRoute(
    {
      summary: "Customer billing portal address",
      response: customerPortalResponse,
      errors: [404],
    },
    async ({ account, req }) => ({ portalUrl: await customerPortalUrl({ userId: account.id, requestUrl: publicRequestUrl(req) }) }),
  ),
});
