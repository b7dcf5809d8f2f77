import { getAiUsage } from "@/lib/credits";
import { methods, route } from "@/lib/http/route";
import { aiUsageResponse } from "@/lib/credits/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      account: "member",
      summary: "AI credit usage of the current user (unlimited in classic_saas mode)",
      tags: ["ai", "credits"],
      errors: [404],
      response: aiUsageResponse,
    },
    ({ account }) => getAiUsage(account.id),
  ),
});
