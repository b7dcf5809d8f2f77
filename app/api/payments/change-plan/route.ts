import { publicRequestUrl } from "@/lib/config/public-url";
import { z } from "zod";
import { changePlan } from "@/lib/billing/subscriptions/change-plan";
import { methods, paymentRoute } from "@/lib/http/route";
import { changePlanResponse } from "@/lib/billing/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: paymentRoute(
    {
      summary: "Upgrade or downgrade the subscription to another plan variant",
      description: "During a trial at most 2 downgrades; the third answers 400 until the trial ends.",
      body: z.object({ newVariantId: z.string().trim().min(1, "is required") }),
      response: changePlanResponse,
      errors: [400, 404],
    },
    ({ account, body, req }) => changePlan({ userId: account.id, newVariantId: body.newVariantId, requestUrl: publicRequestUrl(req) }),
  ),
});
