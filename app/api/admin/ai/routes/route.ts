import { getAiRoutes } from "@/lib/admin/get-ai-routes";
import { aiRoutesResponse } from "@/lib/admin/schemas";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: operatorRoute(
    {
      summary: "AI providers and each model's routes, with every route's recent error rate and latency on this instance",
      description:
        "The configured providers (never their keys), the models in use with the routes that answer them in order, the pricing mode and each flat price's limits. The figures are this instance's own since it started; ask each instance for its own.",
      response: aiRoutesResponse,
    },
    () => getAiRoutes(),
  ),
});
