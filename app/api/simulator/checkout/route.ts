import { z } from "zod";
import { methods, simulatorRoute } from "@/lib/http/route";
import { completeSimulatedCheckout } from "@/lib/simulator/complete-simulated-checkout";
import { simulatedCheckoutResponse } from "@/lib/simulator/schemas";

export const dynamic = "force-dynamic";

const completeBody = z.object({
  id: z.string({ error: "is required" }).min(1, "is required"),
  email: z.string().optional(),
});

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: simulatorRoute(
    {
      body: completeBody,
      summary: "Local checkout simulator: complete a purchase",
      description:
        "Form (from /simulator/checkout/<id>) or JSON { id, email? }. Delivers signed subscription_created + subscription_payment_success, or order_created, to the payment webhook processing, then 303 to the checkout's redirect (JSON: { redirectUrl }). Exists only when Lemon Squeezy is not configured (and outside production unless PAYMENT_SIMULATOR_ENABLED).",
      response: simulatedCheckoutResponse,
      formPost: {
        next: (result) => result.redirectUrl,
        back: (body) => `/simulator/checkout/${encodeURIComponent(body.id)}`,
      },
    },
    async ({ body }) => ({ redirectUrl: (await completeSimulatedCheckout(body.id, { email: body.email || null })).redirectUrl }),
  ),
});
