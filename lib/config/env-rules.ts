import type { Env } from "./env-schema";

/** The example secret the problems show: a shape to copy (generate your own: openssl rand -hex 32). */
export const EXAMPLE_SECRET = "<openssl rand -hex 32>";

/** The rules between settings, and what production requires (names and problems, never values). */
export function crossChecks(env: Env): string[] {
  const problems: string[] = [];
  if (env.isProduction) {
    // Each says what to set, with an example, and every alternative in full: one start lists all of it.
    if (!env.NEXTAUTH_SECRET)
      problems.push(
        `NEXTAUTH_SECRET: required in production, a random secret of 32 characters or more (e.g. NEXTAUTH_SECRET=${EXAMPLE_SECRET})`,
      );
    if (!env.CRON_SECRET)
      problems.push(`CRON_SECRET: required in production, the bearer token of the cron endpoints (e.g. CRON_SECRET=${EXAMPLE_SECRET})`);
    if (!env.DATABASE_URL && !env.ALLOW_EMBEDDED_DATABASE)
      problems.push(
        "DATABASE_URL: required in production (e.g. DATABASE_URL=postgresql://app:password@db.example.com:5432/app); the embedded database keeps its data on this machine's disk, which a serverless or multi-instance deployment loses, so on one server with a persistent disk set ALLOW_EMBEDDED_DATABASE=true instead",
      );
    if (!env.RATE_LIMIT_ENABLED) problems.push("RATE_LIMIT_ENABLED: cannot be false in production (the rate limits are mandatory there)");
    if (env.LEMONSQUEEZY_API_KEY && !env.PAYMENT_WEBHOOK_SECRET)
      problems.push(
        `PAYMENT_WEBHOOK_SECRET: required when LEMONSQUEEZY_API_KEY is set, the signing secret you also give the store's webhook (e.g. PAYMENT_WEBHOOK_SECRET=${EXAMPLE_SECRET})`,
      );
    if (env.PAYMENT_PROVIDER === "stripe" && env.PAYMENTS_ENABLED) {
      if (!env.STRIPE_SECRET_KEY)
        problems.push(
          "STRIPE_SECRET_KEY: required in production with PAYMENT_PROVIDER=stripe, a secret or restricted key (e.g. STRIPE_SECRET_KEY=sk_live_...)",
        );
      if (!env.STRIPE_WEBHOOK_SECRET)
        problems.push(
          "STRIPE_WEBHOOK_SECRET: required in production with PAYMENT_PROVIDER=stripe, the signing secret of the webhook endpoint /api/webhooks/stripe (e.g. STRIPE_WEBHOOK_SECRET=whsec_...)",
        );
    }
    if (env.PAYMENT_PROVIDER !== "stripe" && env.PAYMENTS_ENABLED && !env.LEMONSQUEEZY_API_KEY && !env.PAYMENT_SIMULATOR_ENABLED)
      problems.push(
        `Payments: production needs a payment provider. Either Stripe: PAYMENT_PROVIDER=stripe with STRIPE_SECRET_KEY (e.g. sk_live_...) and STRIPE_WEBHOOK_SECRET (e.g. whsec_...); or Lemon Squeezy: LEMONSQUEEZY_API_KEY (an API key of the store), LEMONSQUEEZY_STORE_ID (e.g. 12345) and PAYMENT_WEBHOOK_SECRET (e.g. ${EXAMPLE_SECRET}); or, for a trial without real payments, PAYMENT_SIMULATOR_ENABLED=true with PAYMENT_WEBHOOK_SECRET; or PAYMENTS_ENABLED=false (nothing is for sale: purchase buttons hidden, payment routes answer 503)`,
      );
    if (
      env.PAYMENT_PROVIDER !== "stripe" &&
      env.PAYMENTS_ENABLED &&
      !env.LEMONSQUEEZY_API_KEY &&
      env.PAYMENT_SIMULATOR_ENABLED &&
      !env.PAYMENT_WEBHOOK_SECRET
    )
      problems.push(
        `PAYMENT_WEBHOOK_SECRET: required in production for the checkout simulator (PAYMENT_SIMULATOR_ENABLED=true), which signs its webhooks with it (e.g. PAYMENT_WEBHOOK_SECRET=${EXAMPLE_SECRET})`,
      );
  }
  if (env.PAYMENT_PROVIDER === "stripe" && env.LEMONSQUEEZY_API_KEY)
    problems.push(
      "PAYMENT_PROVIDER=stripe and LEMONSQUEEZY_API_KEY: one provider sells at a time; unset LEMONSQUEEZY_API_KEY or PAYMENT_PROVIDER",
    );
  if (env.LEMONSQUEEZY_API_KEY && !env.LEMONSQUEEZY_STORE_ID)
    problems.push("LEMONSQUEEZY_STORE_ID: required when LEMONSQUEEZY_API_KEY is set");
  if (Boolean(env.UPSTASH_REDIS_REST_URL) !== Boolean(env.UPSTASH_REDIS_REST_TOKEN))
    problems.push("UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN: set both or neither");
  if (env.S3_BUCKET && !env.S3_REGION) problems.push("S3_REGION: required when S3_BUCKET is set");
  if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY))
    problems.push("S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY: set both or neither");
  if (env.AUTH_OIDC_ISSUER && !(env.AUTH_OIDC_ID && env.AUTH_OIDC_SECRET))
    problems.push("AUTH_OIDC_ID and AUTH_OIDC_SECRET: required when AUTH_OIDC_ISSUER is set");
  return problems;
}

/** The sign-in methods a configuration offers (the sign-in page shows exactly these). */
export function signInMethods(env: Env): Array<"dev" | "email" | "github" | "google" | "oidc"> {
  const methods: Array<"dev" | "email" | "github" | "google" | "oidc"> = [];
  if (env.devLoginEnabled) methods.push("dev");
  if (env.AUTH_EMAIL_LOGIN && (env.RESEND_API_KEY || !env.isProduction)) methods.push("email");
  if (env.AUTH_GITHUB_ID && env.AUTH_GITHUB_SECRET) methods.push("github");
  if (env.AUTH_GOOGLE_ID && env.AUTH_GOOGLE_SECRET) methods.push("google");
  if (env.AUTH_OIDC_ISSUER && env.AUTH_OIDC_ID && env.AUTH_OIDC_SECRET) methods.push("oidc");
  return methods;
}
