import { getRequestUsage } from "@/lib/credits/get-request-usage";
import { requestUsageResponse } from "@/lib/credits/schemas";
import { methods, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      account: "member",
      rateLimit: null,
      summary: "One AI call's cost and tokens, by its charge id or its /v1 chat completion id (chatcmpl-…)",
      description:
        "The account the session acts for (an organisation's member who is not an admin: their own calls). 404 for an unknown id or another account's.",
      tags: ["credits"],
      errors: [404],
      response: requestUsageResponse,
    },
    ({ account, params }) =>
      getRequestUsage({
        accountId: account.id,
        memberId: account.kind === "organisation" && account.role === "member" ? account.memberId : null,
        id: params.id,
      }),
  ),
});
