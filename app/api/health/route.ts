import { checkHealth } from "@/lib/health/check-health";
import { json } from "@/lib/http/respond";
import { methods, route } from "@/lib/http/route";
import { healthResponse } from "@/lib/health/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "none",
      cache: "health",
      summary: "Health check",
      description: "Database and memory checks. 200 when healthy, 503 (same body) when unhealthy. Never cached.",
      tags: ["health"],
      errors: [503],
      response: healthResponse,
    },
    async () => {
      const report = await checkHealth();
      return json(report, {
        status: report.status === "healthy" ? 200 : 503,
        headers: { "cache-control": "no-cache, no-store, must-revalidate" },
      });
    },
  ),
});
