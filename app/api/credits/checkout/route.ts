import { publicRequestUrl } from "@/lib/config/public-url";
import { z } from "zod";
import { createBonusCheckout } from "@/lib/billing/checkout/create-bonus-checkout";
import { methods, paymentRoute } from "@/lib/http/route";
import { checkoutUrlResponse } from "@/lib/billing/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: paymentRoute(
    {
      feature: "bonusCredits",
      summary: "Checkout for a bonus credit package of the user's tier",
      description: "After payment the buyer lands on /dashboard/credits?purchase=success; order_created grants the credits.",
      tags: ["credits"],
      body: z.object({ variantId: z.string().trim().min(1, "is required") }),
      response: checkoutUrlResponse,
      errors: [400, 403],
    },
    ({ user, account, body, req }) =>
      createBonusCheckout({ userId: account.id, buyerEmail: user.email, variantId: body.variantId, requestUrl: publicRequestUrl(req) }),
  ),
});
