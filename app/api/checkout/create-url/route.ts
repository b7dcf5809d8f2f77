import { publicRequestUrl } from "@/lib/config/public-url";
import { z } from "zod";
import { createPlanCheckout } from "@/lib/billing/checkout/create-checkout";
import { methods, paymentRoute } from "@/lib/http/route";
import { checkoutUrlResponse } from "@/lib/billing/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: paymentRoute(
    {
      summary: "Checkout URL for a plan variant of a tier",
      body: z.object({ variantId: z.string().trim().min(1, "is required"), tier: z.string().trim().min(1, "is required") }),
      response: checkoutUrlResponse,
      errors: [400],
    },
    ({ user, account, body, req }) =>
      createPlanCheckout({
        userId: account.id,
        buyerEmail: user.email,
        variantId: body.variantId,
        tier: body.tier,
        requestUrl: publicRequestUrl(req),
      }),
  ),
});
