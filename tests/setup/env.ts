import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * Every test file starts from a known environment: a fresh in-memory PGlite (each file has its own
 * module registry, so its own database), its own data dir for files and mail, fixed test secrets,
 * and no real services configured. Tests switch settings with tests/helpers/env.ts.
 */
const dataDir = mkdtempSync(path.join(tmpdir(), "svc-test-"));
const keep = new Set(["PATH", "HOME", "TMPDIR", "LANG", "TZ", "CI", "TEST_DATABASE_URL", "TEST_REDIS_PORT", "NODE_OPTIONS"]);
for (const name of Object.keys(process.env)) {
  if (keep.has(name) || name.startsWith("npm_") || name.startsWith("VITEST") || name === "NODE_ENV") continue;
  if (
    /^(DATABASE_URL|UPSTASH_|S3_|RESEND_|LEMONSQUEEZY_|OPENAI_|ANTHROPIC_|GEMINI_|AUTH_|PUBLIC_|NEXTAUTH_|APP_ENV|DATA_DIR|PGLITE_|RAG_|AI_|EMAIL_|CRON_|DEBUG_|PRICING_|RATE_LIMIT_|UPLOAD_|FILE_URL_|IDENTITY_|PAYMENT_|CREDITS_|ALLOW_|TRUSTED_|ADMIN_|METRICS_|OTEL_|API_KEYS_)/.test(
      name,
    )
  ) {
    delete process.env[name];
  }
}
Object.assign(process.env, {
  APP_ENV: "test",
  DATA_DIR: dataDir,
  PGLITE_DATA_DIR: "memory://",
  // Tests that switch to production keep the in-memory embedded database, and take payments through
  // the checkout simulator (production needs a payment provider or PAYMENTS_ENABLED=false).
  ALLOW_EMBEDDED_DATABASE: "true",
  PAYMENT_SIMULATOR_ENABLED: "true",
  NEXTAUTH_SECRET: "test-nextauth-secret-0123456789abcdef",
  NEXTAUTH_URL: "http://localhost:3000",
  IDENTITY_WEBHOOK_SECRET: "whsec_dGVzdC1pZGVudGl0eS1zZWNyZXQtMDEyMzQ1Njc4OQ==",
  EMAIL_WEBHOOK_SECRET: "whsec_dGVzdC1lbWFpbC1zZWNyZXQtMDEyMzQ1Njc4OWFi",
  PAYMENT_WEBHOOK_SECRET: "test-payment-webhook-secret",
  RAG_INDEX_ON_START: "false",
  LOG_LEVEL: process.env.LOG_LEVEL ?? "error",
});
