import { getAiRoutes } from "@/lib/admin/get-ai-routes";
import { aiRoutesResponse } from "@/lib/admin/schemas";
import { methods, operatorRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: operatorRoute(
    {
      summary: "AI providers and each model's routes, with every route's recent error rate and latency on this instance",
      response: aiRoutesResponse,
    },
    () => getAiRoutes(),
  ),
});
