import { env } from "@/lib/config/env";
import { AppError } from "@/lib/errors";
import { appBaseUrl } from "@/lib/config/public-url";
import { lemonSqueezyFromEnv } from "./lemonsqueezy-client";
import type { PaymentProvider } from "./provider-types";
import { paymentWebhookSecret } from "./signing-secret";
import { CheckoutSimulator } from "./checkout-simulator";

/** The answer of every payment route while PAYMENTS_ENABLED=false. */
export function paymentsDisabled(): AppError {
  return new AppError("payments_disabled", "Payments are switched off on this site (PAYMENTS_ENABLED=false): nothing can be bought here");
}

/** True when the local checkout simulator stands in for Lemon Squeezy. */
export function simulatorEnabled(): boolean {
  const e = env();
  if (e.LEMONSQUEEZY_API_KEY) return false;
  if (e.isProduction && !e.PAYMENT_SIMULATOR_ENABLED) return false;
  return paymentWebhookSecret() !== undefined;
}

/**
 * The payment provider: Lemon Squeezy when LEMONSQUEEZY_API_KEY is set, else the local checkout
 * simulator (outside production, or with PAYMENT_SIMULATOR_ENABLED=true). `requestUrl` gives the
 * simulator its public base URL when NEXTAUTH_URL is unset.
 */
export function paymentProvider(requestUrl?: string): PaymentProvider {
  if (!env().PAYMENTS_ENABLED) throw paymentsDisabled();
  const lemon = lemonSqueezyFromEnv();
  if (lemon) return lemon;
  if (simulatorEnabled()) return new CheckoutSimulator(appBaseUrl(requestUrl));
  throw new AppError("provider_not_configured", "Payments are not configured: set LEMONSQUEEZY_API_KEY and LEMONSQUEEZY_STORE_ID");
}
