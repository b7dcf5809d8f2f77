import { publicRequestUrl } from "@/lib/http/public-url";
import { z } from "zod";
import { customerPortalUrl } from "@/lib/billing/customer-portal-url";
import { methods, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route(
    {
      auth: "session",
      rateLimit: "payments",
      summary: "Customer billing portal address",
      tags: ["payments"],
      response: z.object({ portalUrl: z.string() }),
      errors: [404],
    },
    async ({ user, req }) => ({ portalUrl: await customerPortalUrl({ userId: user.id, requestUrl: publicRequestUrl(req) }) }),
  ),
});
