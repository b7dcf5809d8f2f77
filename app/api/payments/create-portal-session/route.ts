import { publicRequestUrl } from "@/lib/config/public-url";
import { customerPortalUrl } from "@/lib/billing/subscriptions/customer-portal-url";
import { methods, route } from "@/lib/http/route";
import { portalSessionResponse } from "@/lib/billing/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route(
    {
      auth: "session",
      account: "admin",
      summary: "Billing portal session (address valid 24 hours)",
      tags: ["payments"],
      response: portalSessionResponse,
      errors: [404],
    },
    async ({ account, req }) => ({ url: await customerPortalUrl({ userId: account.id, requestUrl: publicRequestUrl(req) }) }),
  ),
});
