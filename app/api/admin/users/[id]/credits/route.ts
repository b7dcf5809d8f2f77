import { adjustUserCredits } from "@/lib/admin/adjust-user-credits";
import { adjustCreditsBody, adjustCreditsResponse } from "@/lib/admin/schemas";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: operatorRoute(
    {
      body: adjustCreditsBody,
      summary: "Adjust a user's credits (±, subscription or bonus bucket) with a reason; the same idempotencyKey applies once",
      description:
        "An `adjustment` ledger row with the operator and reason, the balance change and the audit row in one transaction. 400 when a bucket would go below zero; 409 when the key was used for a different adjustment.",
      errors: [409],
      response: adjustCreditsResponse,
    },
    ({ operator, params, body, requestId }) => adjustUserCredits({ operator, userId: params.id, ...body, requestId }),
  ),
});
