import { z } from "zod";
import { bool, decimal, emailList, int, jsonObject, optionalEnum, optionalText, optionalUrl, portList } from "./env-fields";
import { pricingOverrideSchema } from "./pricing-schema";

/**
 * Every setting of .env.example, declared and validated by zod (lib/config/env.ts reads process.env
 * through it and reports every problem at once). Edge-safe: no Node APIs.
 */
/** A JSON object whose shape its reader checks (AI_PROVIDERS, AI_ROUTES: lib/ai/providers; AI_MODELS: lib/ai/catalog), reported at start with every other problem. */
const settingsObject = z.record(z.string(), z.unknown());

export const envSchema = z.object({
  NODE_ENV: optionalEnum(["development", "test", "production"]),
  APP_ENV: optionalEnum(["development", "test", "production"]),
  LOG_LEVEL: optionalEnum(["debug", "info", "warn", "error"]),
  /** Human-readable logs (pino-pretty, a development dependency) instead of JSON lines. */
  LOG_PRETTY: bool(false),
  /** Share of requests that get an access line (0 to 1; errors and slow requests are not treated apart). */
  LOG_ACCESS_SAMPLE: decimal({ fallback: 1, min: 0 }).pipe(z.number().max(1, "must be a number from 0 to 1")),
  APP_VERSION: optionalText,
  /** How long a stopping standalone server waits for requests in flight (read by scripts/preflight.ts, checked here). */
  SHUTDOWN_TIMEOUT_MS: int(25_000, 1),
  /** The standalone server answers the hot AI routes before Next's router (lib/server/gateway-lane.ts, read by scripts/preflight.ts). */
  GATEWAY_LANE: bool(true),
  /** Server processes of the standalone server on PostgreSQL (lib/server/server-processes.ts, read by scripts/preflight.ts); 1 on the embedded database. */
  WEB_CONCURRENCY: int(1, 1),

  // Embedded default and database
  DATA_DIR: optionalText,
  PGLITE_DATA_DIR: optionalText,
  DATABASE_URL: optionalText.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
      .optional(),
  ),
  DATABASE_POOL_MAX: int(10, 1),
  /** Named prepared statements on the hot path; false behind a transaction-pooling proxy (PgBouncer < 1.21, Supabase's and Neon's pooled URLs). */
  DATABASE_PREPARED_STATEMENTS: bool(true),
  /** Production on the embedded database (PGlite on local disk) only when this says so explicitly. */
  ALLOW_EMBEDDED_DATABASE: bool(false),
  /** npm start (production) may use development's .data directory (scripts/standalone-start.mjs). */
  ALLOW_DEV_DATA_DIR: bool(false),

  // Auth
  NEXTAUTH_SECRET: optionalText,
  NEXTAUTH_URL: optionalUrl,
  AUTH_DEV_LOGIN: optionalEnum(["true", "false"]),
  /** In production the development sign-in (anyone signs in as any email) also needs this, said out loud. */
  AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION: bool(false),
  /** Sign-in by emailed link (Resend in production, the local mailbox elsewhere). */
  AUTH_EMAIL_LOGIN: bool(true),
  AUTH_GITHUB_ID: optionalText,
  AUTH_GITHUB_SECRET: optionalText,
  AUTH_GOOGLE_ID: optionalText,
  AUTH_GOOGLE_SECRET: optionalText,
  AUTH_OIDC_ISSUER: optionalUrl,
  AUTH_OIDC_ID: optionalText,
  AUTH_OIDC_SECRET: optionalText,
  AUTH_OIDC_NAME: optionalText,

  // Webhook, cron and debug secrets (server-side only)
  IDENTITY_WEBHOOK_SECRET: optionalText,
  PAYMENT_WEBHOOK_SECRET: optionalText,
  EMAIL_WEBHOOK_SECRET: optionalText,
  CRON_SECRET: optionalText,
  DEBUG_KEY: optionalText,
  /** Bearer token of GET /api/metrics (unset: open outside production, 404 in production). */
  METRICS_TOKEN: optionalText,

  // Operator console (docs/ADMIN.md)
  /** Operators: signed-in users whose verified email is listed (comma-separated, case-insensitive). */
  ADMIN_EMAILS: emailList,
  /** Bearer token for scripts calling /api/admin/* (compared in constant time); unset: none. */
  ADMIN_API_TOKEN: optionalText.pipe(z.string().min(32, "must be at least 32 characters (openssl rand -base64 32)").optional()),

  // Rate limiting
  /** Off only outside production (benchmarks, load tests); refused at start-up in production. */
  RATE_LIMIT_ENABLED: bool(true),
  RATE_LIMIT_TIMEOUT_MS: int(1000, 1),
  /** Reverse proxies in front of the app that append to X-Forwarded-For (lib/http/client-ip.ts). */
  TRUSTED_PROXY_HOPS: int(1, 0),
  /** Serves /api/bench/noop (the benchmark's baseline route) in production too; off by default. */
  BENCH_ROUTES: bool(false),
  UPSTASH_REDIS_REST_URL: optionalUrl,
  UPSTASH_REDIS_REST_TOKEN: optionalText,

  // Storage
  S3_BUCKET: optionalText,
  S3_REGION: optionalText,
  S3_ENDPOINT: optionalUrl,
  S3_ACCESS_KEY_ID: optionalText,
  S3_SECRET_ACCESS_KEY: optionalText,
  S3_FORCE_PATH_STYLE: bool(false),
  UPLOAD_MAX_BYTES: int(50 * 1024 * 1024, 1),
  FILE_URL_TTL_SECONDS: int(900, 1),
  FILE_URL_SECRET: optionalText,

  /** How long a server started while its database is down retries before exiting 1 for a restart (lib/server/start-server.ts). */
  DATABASE_STARTUP_RETRY_SECONDS: int(300, 1),

  // Email
  RESEND_API_KEY: optionalText,
  RESEND_BASE_URL: optionalUrl,
  EMAIL_FROM: optionalText,
  /** Outbound webhooks may go to http and private addresses (local receivers): outside production by default, never in production. */
  OUTBOUND_WEBHOOKS_ALLOW_PRIVATE: bool(true),
  /** Ports besides 80 and 443 a public webhook URL may name (where private targets are refused: production). */
  OUTBOUND_WEBHOOKS_ALLOWED_PORTS: portList,
  EMAIL_ALLOWED_RECIPIENT_DOMAINS: optionalText,

  // Payments
  LEMONSQUEEZY_API_KEY: optionalText,
  LEMONSQUEEZY_STORE_ID: optionalText,
  LEMONSQUEEZY_API_URL: optionalUrl,
  /** Which provider sells: lemonsqueezy (the default) or stripe. Each is refused at start in production without its settings. */
  PAYMENT_PROVIDER: optionalEnum(["lemonsqueezy", "stripe"]),
  STRIPE_SECRET_KEY: optionalText,
  /** The webhook endpoint's signing secret (whsec_...), checked by the official package's constructEvent. */
  STRIPE_WEBHOOK_SECRET: optionalText,
  /** Where the Stripe package sends its API calls (scheme, host and port; tests and the local simulator). Default https://api.stripe.com */
  STRIPE_API_BASE: optionalUrl,
  /** The local Stripe simulator's port (PAYMENT_PROVIDER=stripe without STRIPE_SECRET_KEY, outside production). */
  STRIPE_SIMULATOR_PORT: int(12111, 1),
  PRICING_CONFIG: jsonObject(pricingOverrideSchema),
  /** false: no purchases at all (purchase buttons hidden, payment routes 503 payments_disabled); production then needs no payment provider. */
  PAYMENTS_ENABLED: bool(true),
  /** Local checkout simulator when Lemon Squeezy is not configured: always outside production; in production only when true. */
  PAYMENT_SIMULATOR_ENABLED: bool(false),
  /** The daily check-trials cron also reconciles subscriptions and bonus orders with Lemon Squeezy. */
  BILLING_SYNC_IN_CRON: bool(false),

  // AI
  OPENAI_API_KEY: optionalText,
  OPENAI_BASE_URL: optionalUrl,
  ANTHROPIC_API_KEY: optionalText,
  /** Anthropic's API base (default https://api.anthropic.com; tests and proxies). */
  ANTHROPIC_BASE_URL: optionalUrl,
  GEMINI_API_KEY: optionalText,
  /** The Gemini API base (default https://generativelanguage.googleapis.com; tests and proxies). */
  GEMINI_BASE_URL: optionalUrl,
  /** More providers with their own base URL and key (lib/ai/providers/routing-settings.ts). */
  AI_PROVIDERS: jsonObject(settingsObject),
  /** Per model, the ordered providers that serve it (fallback on failure). */
  AI_ROUTES: jsonObject(settingsObject),
  /** Most upstream attempts per call across its routes (0: one per route). */
  AI_ROUTE_ATTEMPTS: int(0, 0),
  /** How long one route may take to start answering before the next is tried (0: the call's whole deadline). */
  AI_ROUTE_TIMEOUT_MS: int(0, 0),
  /** Serve every model with the offline provider (labelled, deterministic), even in production. */
  AI_OFFLINE: bool(false),
  AI_CHAT_MODEL: optionalText,
  AI_ALLOWED_MODELS: optionalText,
  AI_IMAGE_MODEL_MAP: optionalText,
  AI_TRANSCRIPTION_MODEL: optionalText,
  AI_EMBEDDING_MODEL: optionalText,
  AI_TIMEOUT_MS: int(60_000, 1),
  /** AI requests one user may have in progress at once, across instances (0: no cap). */
  AI_MAX_CONCURRENT_PER_USER: int(8, 0),
  /** flat: SPEC's fixed credit costs (refusing calls that would cost more than they are worth); metered: priced by model and tokens. */
  AI_PRICING_MODE: optionalEnum(["flat", "metered"]).transform((v) => v ?? "flat"),
  /** USD value of one credit; unset: the lowest price a credit is sold at in the pricing catalog. */
  CREDIT_VALUE_USD: decimal({ min: 0, exclusiveMin: true }),
  /** Provider cost x markup = what a call sells for (at least 1: never below cost). */
  AI_MARKUP: decimal({ min: 1, fallback: 1 }),
  /** Flat mode: the share of a flat price kept as a safety margin (0.2: a call's worst case may use at most 80% of what its credits are worth). */
  AI_FLAT_MARGIN: decimal({ min: 0, max: 0.9, fallback: 0.2 }),
  /** Least credits a metered call costs. */
  AI_MIN_CREDITS_PER_CALL: int(1, 0),
  /** Model catalog overrides and additions: { "<model id>": { ...fields } } (lib/ai/catalog/models.ts). */
  AI_MODELS: jsonObject(settingsObject),

  // Traces (OpenTelemetry; the SDK also reads its standard OTEL_* variables itself)
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  OTEL_EXPORTER_OTLP_PROTOCOL: optionalEnum(["http/protobuf", "http/json"]),
  OTEL_SERVICE_NAME: optionalText,

  // RAG
  RAG_KNOWLEDGE_DIR: optionalText,
  RAG_INDEX_ON_START: bool(true),

  // Feature flags (SPEC §1) and credit settings
  PUBLIC_PRICING_MODEL: optionalEnum(["credit_based", "classic_saas"]).transform((v) => v ?? "credit_based"),
  PUBLIC_BONUS_CREDITS_ENABLED: bool(true),
  PUBLIC_AI_LLM_CHAT_ENABLED: bool(true),
  PUBLIC_AI_AUDIO_INPUT_ENABLED: bool(true),
  PUBLIC_AI_IMAGE_GEN_ENABLED: bool(true),
  PUBLIC_AI_CONTENT_GEN_ENABLED: bool(true),
  PUBLIC_AI_RAG_CHAT_ENABLED: bool(true),
  PUBLIC_FREE_TIER_ENABLED: bool(true),
  CREDITS_USER_TOGGLE_ENABLED: bool(true),
  /** API keys and the OpenAI-compatible API (/v1, /api/keys): off answers 404 there. */
  API_KEYS_ENABLED: bool(true),
});

export type RawEnv = z.infer<typeof envSchema>;
export type AppEnv = "development" | "test" | "production";
export type Env = RawEnv & {
  appEnv: AppEnv;
  isProduction: boolean;
  dataDir: string;
  devLoginEnabled: boolean;
};
