import { z } from "zod";
import { methods, simulatorRoute } from "@/lib/http/route";
import { simulatedPortalResponse } from "@/lib/simulator/schemas";
import { REFUND_AMOUNTS, refundSimulatedPayment } from "@/lib/simulator/refund-simulated-payment";

export const dynamic = "force-dynamic";

const refundBody = z.object({
  token: z.string({ error: "is required" }).min(1, "is required"),
  amount: z.enum(REFUND_AMOUNTS, { error: `must be one of ${REFUND_AMOUNTS.join(", ")}` }),
});

const receiptPage = (token: string) => `/simulator/receipt?token=${encodeURIComponent(token)}`;

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: simulatorRoute(
    {
      body: refundBody,
      summary: "Local checkout simulator: refund a simulated payment (in full, or half of it)",
      description:
        "Form (from /simulator/receipt) or JSON { token, amount: full | half }; the signed receipt token authorizes. Delivers the signed order_refunded or subscription_payment_refunded webhook Lemon Squeezy sends. Form posts answer 303 back to the receipt page.",
      response: simulatedPortalResponse,
      errors: [404, 409],
      formPost: {
        next: (result, body) => `${receiptPage(body.token)}&message=${encodeURIComponent(result.message)}`,
        back: (body) => receiptPage(body.token),
        passThrough: ["not_found"],
      },
    },
    async ({ body }) => ({ message: await refundSimulatedPayment(body) }),
  ),
});
