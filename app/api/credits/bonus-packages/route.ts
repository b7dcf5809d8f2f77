import { getBonusPackages } from "@/lib/billing/checkout/bonus-packages";
import { methods, route } from "@/lib/http/route";
import { bonusPackagesResponse } from "@/lib/billing/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      account: "member",
      rateLimit: "api",
      feature: "bonusCredits",
      summary: "Bonus credit packages of the user's tier and the monthly purchase room",
      tags: ["credits"],
      response: bonusPackagesResponse,
    },
    ({ account }) => getBonusPackages(account.id),
  ),
});
