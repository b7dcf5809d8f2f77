import { registerOTel } from "@vercel/otel";
import { env } from "@/lib/config/env";
import { enableTracing } from "./index";
import { redactSecretsProcessor } from "./redact-secrets";

/**
 * Registers the OpenTelemetry SDK (@vercel/otel) when OTEL_EXPORTER_OTLP_ENDPOINT is set: Next.js'
 * own spans (the route, fetches) and ours (lib/tracing) are exported over OTLP/HTTP
 * (OTEL_EXPORTER_OTLP_PROTOCOL: http/protobuf, the default, or http/json) to any collector.
 */
export function registerTracing(): void {
  registerOTel({
    serviceName: env().OTEL_SERVICE_NAME ?? "subscription-ai-backend",
    // No fetch instrumentation: the one outgoing call that matters, the AI provider's, has its own
    // span (ai.provider.*) with model, tokens and outcome; a second span per call only costs time.
    instrumentations: [],
    // API keys never reach an exporter (a key put in a URL would be in Next's request span).
    spanProcessors: [redactSecretsProcessor, "auto"],
  });
  enableTracing();
}
