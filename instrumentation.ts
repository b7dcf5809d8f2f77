/**
 * Server start-up (Next calls register() once per server process, before the first request).
 * Node runtime only:
 *   1. validate the environment: on a problem, print the readable list of every problem and exit 1;
 *   2. open the database (the embedded PGlite is migrated as it opens), so the first request and the
 *      health check find it ready; a failure is logged and reported by /api/health, not fatal;
 *   3. index the shipped knowledge for RAG in the background (RAG_INDEX_ON_START, default true),
 *      never blocking readiness;
 *   4. with PAYMENT_PROVIDER=stripe and no STRIPE_SECRET_KEY outside production, start the local Stripe simulator.
 * With OTEL_EXPORTER_OTLP_ENDPOINT set, the OpenTelemetry SDK is registered before all of it.
 * Nothing runs during `next build`: the build must never open the database.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  // Traces first, so the SDK sees every span of the process (on only with an OTLP endpoint).
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) {
    const { registerTracing } = await import("./lib/tracing/register");
    registerTracing();
  }
  const { startServer } = await import("./lib/server/start-server");
  await startServer();
  // PAYMENT_PROVIDER=stripe without a key, outside production: the local Stripe simulator beside the app.
  const { startLocalStripeSimulator } = await import("./lib/simulator/stripe/local-stripe-simulator");
  await startLocalStripeSimulator();
}
