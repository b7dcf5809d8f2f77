import { z } from "zod";
import { getBonusPackages } from "@/lib/billing/bonus-packages";
import { methods, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      rateLimit: "api",
      feature: "bonusCredits",
      summary: "Bonus credit packages of the user's tier and the monthly purchase room",
      tags: ["credits"],
      response: z.object({
        enabled: z.boolean(),
        packages: z.array(z.object({ credits: z.number(), price: z.number(), variantId: z.string() })),
        monthlyLimit: z.number(),
        monthlyPurchasedCredits: z.number(),
        canPurchaseMore: z.boolean(),
        tier: z.string(),
      }),
    },
    ({ user }) => getBonusPackages(user.id),
  ),
});
