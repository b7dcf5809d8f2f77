import { publicRequestUrl } from "@/lib/config/public-url";
import { customerPortalUrl } from "@/lib/billing/subscriptions/customer-portal-url";
import { methods, route } from "@/lib/http/route";
import { customerPortalResponse } from "@/lib/billing/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route(
    {
      auth: "session",
      rateLimit: "payments",
      summary: "Customer billing portal address",
      tags: ["payments"],
      response: customerPortalResponse,
      errors: [404],
    },
    async ({ user, req }) => ({ portalUrl: await customerPortalUrl({ userId: user.id, requestUrl: publicRequestUrl(req) }) }),
  ),
});
