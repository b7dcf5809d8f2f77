import { methods, route } from "@/lib/http/route";
import { readMetrics } from "@/lib/metrics/read-metrics";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "none",
      summary: "Prometheus metrics of this instance (operators)",
      description:
        "Text exposition format. `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set (401 otherwise); without METRICS_TOKEN open outside production and 404 in production. Each instance answers its own; scrape every instance (docs/OBSERVABILITY.md).",
      tags: ["operations"],
      errors: [401, 404],
      produces: "text/plain",
    },
    ({ req }) => readMetrics(req),
  ),
});
