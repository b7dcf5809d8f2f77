import { env } from "@/lib/config/env";

/**
 * Fixed development secret for the local checkout simulator when PAYMENT_WEBHOOK_SECRET is unset.
 * Documented (docs/API-NOTES.md "Payments"); never used in production.
 */
export const DEV_PAYMENT_WEBHOOK_SECRET = "dev-payment-webhook-secret-not-for-production";

/**
 * The secret that signs and verifies payment webhooks: PAYMENT_WEBHOOK_SECRET, else (outside
 * production only) the fixed development secret. Undefined in production without a secret, so every
 * delivery then fails verification.
 */
export function paymentWebhookSecret(): string | undefined {
  const e = env();
  if (e.PAYMENT_WEBHOOK_SECRET) return e.PAYMENT_WEBHOOK_SECRET;
  return e.isProduction ? undefined : DEV_PAYMENT_WEBHOOK_SECRET;
}
