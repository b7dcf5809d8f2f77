import { env } from "@/lib/config/env";
import { AppError } from "@/lib/errors";
import { appBaseUrl } from "@/lib/config/public-url";
import { lemonSqueezyFromEnv } from "./lemonsqueezy-client";
import type { PaymentProvider } from "./provider-types";
import { paymentWebhookSecret } from "./signing-secret";
import { CheckoutSimulator } from "./checkout-simulator";
import { stripeFromEnv } from "./stripe-client";

/** The answer of every payment route while PAYMENTS_ENABLED=false. */
export function paymentsDisabled(): AppError {
  return new AppError("payments_disabled", "Payments are switched off on this site (PAYMENTS_ENABLED=false): nothing can be bought here");
}

/** True when the local checkout simulator stands in for Lemon Squeezy (never with PAYMENT_PROVIDER=stripe: Stripe has its own). */
export function simulatorEnabled(): boolean {
  const e = env();
  if (e.LEMONSQUEEZY_API_KEY || e.PAYMENT_PROVIDER === "stripe") return false;
  if (e.isProduction && !e.PAYMENT_SIMULATOR_ENABLED) return false;
  return paymentWebhookSecret() !== undefined;
}

/**
 * The payment provider: Stripe when PAYMENT_PROVIDER=stripe (its local simulator outside production
 * without a key), Lemon Squeezy when LEMONSQUEEZY_API_KEY is set, else the local checkout simulator
 * (outside production, or with PAYMENT_SIMULATOR_ENABLED=true). `requestUrl` gives return addresses
 * their public base URL when NEXTAUTH_URL is unset.
 */
export function paymentProvider(requestUrl?: string): PaymentProvider {
  if (!env().PAYMENTS_ENABLED) throw paymentsDisabled();
  if (env().PAYMENT_PROVIDER === "stripe") {
    const stripe = stripeFromEnv(appBaseUrl(requestUrl));
    if (stripe) return stripe;
    throw new AppError("provider_not_configured", "Payments are not configured: set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET");
  }
  const lemon = lemonSqueezyFromEnv();
  if (lemon) return lemon;
  if (simulatorEnabled()) return new CheckoutSimulator(appBaseUrl(requestUrl));
  throw new AppError("provider_not_configured", "Payments are not configured: set LEMONSQUEEZY_API_KEY and LEMONSQUEEZY_STORE_ID");
}
