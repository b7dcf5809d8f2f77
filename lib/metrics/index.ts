import client from "prom-client";
import { processState } from "@/lib/process-state";
import { metricsOfEveryProcess } from "./process-messages";

/**
 * Prometheus metrics of this process (prom-client: the only file importing it). Every instance exposes
 * its own at GET /api/metrics (with WEB_CONCURRENCY, the sum of its processes'); Prometheus scrapes each instance and sums across them
 * (docs/OBSERVABILITY.md). Labels are bounded: route patterns (never raw paths), known event types,
 * configured models, fixed outcome names.
 */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

function create() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const dbPools: Array<() => { total: number; idle: number; waiting: number }> = [];
  return {
    registry,
    dbPools,
    httpRequests: new client.Counter({
      name: "http_requests_total",
      help: "API requests answered, by route pattern, method and status",
      labelNames: ["route", "method", "status"],
      registers,
    }),
    httpDuration: new client.Histogram({
      name: "http_request_duration_seconds",
      help: "Time from request to response headers, by route pattern, method and status",
      labelNames: ["route", "method", "status"],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    creditsCharged: new client.Counter({
      name: "credits_charged_total",
      help: "Credits charged (reserved) by operation",
      labelNames: ["operation"],
      registers,
    }),
    creditsRefunded: new client.Counter({
      name: "credits_refunded_total",
      help: "Credits refunded by operation",
      labelNames: ["operation"],
      registers,
    }),
    creditsUncollected: new client.Counter({
      name: "credits_uncollected_total",
      help: "Credits a settlement could not draw (usage above the reservation with the balance at zero), by operation: never expected",
      labelNames: ["operation"],
      registers,
    }),
    creditsGranted: new client.Counter({
      name: "credits_granted_total",
      help: "Credits granted by source (purchase, monthly_reset)",
      labelNames: ["source"],
      registers,
    }),
    outboundDeliveries: new client.Counter({
      name: "outbound_webhook_deliveries_total",
      help: "Outbound webhook delivery attempts, by outcome (delivered, retrying, failed)",
      labelNames: ["outcome"],
      registers,
    }),
    alertsFired: new client.Counter({
      name: "spend_alerts_fired_total",
      help: "Spend alerts fired, by kind (allocation, low, depleted, key)",
      labelNames: ["kind"],
      registers,
    }),
    reservationFailures: new client.Counter({
      name: "credit_reservation_failures_total",
      help: "Charges refused, by reason (insufficient, conflict)",
      labelNames: ["reason"],
      registers,
    }),
    aiDuration: new client.Histogram({
      name: "ai_provider_request_duration_seconds",
      help: "AI provider calls by provider, model, endpoint and outcome (ok, error); one per route attempt",
      labelNames: ["provider", "model", "endpoint", "outcome"],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    aiErrors: new client.Counter({
      name: "ai_provider_errors_total",
      help: "AI provider failures by provider, model and kind (timeout, network, 429, 5xx, 4xx, content_policy, invalid_response)",
      labelNames: ["provider", "model", "kind"],
      registers,
    }),
    aiTimeToFirstToken: new client.Histogram({
      name: "ai_stream_time_to_first_token_seconds",
      help: "Streams: time to the first text from the provider, by provider and model",
      labelNames: ["provider", "model"],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    aiRouteAttempts: new client.Counter({
      name: "ai_route_attempts_total",
      help: "Attempts on each route of a model (lib/ai/providers/router.ts), by outcome: ok, failover (the next route was tried), error (the call failed there)",
      labelNames: ["model", "provider", "outcome"],
      registers,
    }),
    aiFallbacks: new client.Counter({
      name: "ai_route_fallbacks_total",
      help: "Calls that moved on from a route, by model, the route left and why (timeout, network, rate_limited, overloaded, server_error)",
      labelNames: ["model", "provider", "reason"],
      registers,
    }),
    webhookDeliveries: new client.Counter({
      name: "webhook_deliveries_total",
      help: "Inbound webhook deliveries by source, event type and outcome (processed, duplicate, ignored, failed, bad_signature)",
      labelNames: ["source", "type", "outcome"],
      registers,
    }),
    rateLimitRejections: new client.Counter({
      name: "rate_limit_rejections_total",
      help: "Requests refused with 429, by category",
      labelNames: ["category"],
      registers,
    }),
    rateLimitFailOpen: new client.Counter({
      name: "rate_limit_store_failopen_total",
      help: "Requests let through because the rate-limit store failed or was slow, by store",
      labelNames: ["store"],
      registers,
    }),
    cronRuns: new client.Counter({
      name: "cron_runs_total",
      help: "Cron job runs by job and status (success, skipped, failed)",
      labelNames: ["job", "status"],
      registers,
    }),
    serverProcesses: new client.Gauge({
      name: "server_processes",
      help: "Server processes whose metrics this answer adds up: 1, or WEB_CONCURRENCY's workers that answered the scrape",
      registers,
      collect() {
        this.set(1);
      },
    }),
    dbPool: new client.Gauge({
      name: "db_pool_connections",
      help: "PostgreSQL pool connections by state (total, idle, waiting)",
      labelNames: ["state"],
      registers,
      collect() {
        let total = 0;
        let idle = 0;
        let waiting = 0;
        for (const read of dbPools) {
          const s = read();
          total += s.total;
          idle += s.idle;
          waiting += s.waiting;
        }
        this.set({ state: "total" }, total);
        this.set({ state: "idle" }, idle);
        this.set({ state: "waiting" }, waiting);
      },
    }),
  };
}

type Metrics = ReturnType<typeof create>;
const state = processState("metrics", () => ({ metrics: undefined as Metrics | undefined }));

/** The process's metrics (one registry per process, kept across `next dev` reloads). */
export function metrics(): Metrics {
  state.metrics ??= create();
  return state.metrics;
}

/** Reports a PostgreSQL pool's connection counts on every scrape. */
export function watchDbPool(read: () => { total: number; idle: number; waiting: number }): void {
  metrics().dbPools.push(read);
}

/** This process's metrics as prom-client's JSON, for the primary of WEB_CONCURRENCY to add up. */
export async function metricsAsJSON(): Promise<unknown[]> {
  return metrics().registry.getMetricsAsJSON();
}

/** Several processes' metrics (metricsAsJSON of each) as one exposition: counters and histograms summed. */
export async function aggregateMetrics(perProcess: unknown[][]): Promise<{ contentType: string; body: string }> {
  const registry = client.AggregatorRegistry.aggregate(perProcess as Parameters<typeof client.AggregatorRegistry.aggregate>[0]);
  return { contentType: registry.contentType, body: await registry.metrics() };
}

/**
 * GET /api/metrics's body: with WEB_CONCURRENCY, every server process's metrics added up by the primary
 * (lib/metrics/process-messages.ts); otherwise, or when the primary does not answer, this process's.
 */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  const everyProcess = await metricsOfEveryProcess();
  if (everyProcess) return everyProcess;
  const m = metrics();
  return { contentType: m.registry.contentType, body: await m.registry.metrics() };
}

/** Known webhook event types, so a label never carries an arbitrary string. */
export function boundedLabel(value: string | null | undefined, known: readonly string[]): string {
  return value && known.includes(value) ? value : value ? "other" : "unknown";
}
