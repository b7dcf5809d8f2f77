import { env } from "@/lib/config/env";
import type { PaymentProviderName } from "./provider-types";

/** The provider payments are recorded under: Stripe when PAYMENT_PROVIDER=stripe, Lemon Squeezy when its API key is set, else the local simulator. */
export function paymentProviderName(): PaymentProviderName {
  const e = env();
  if (e.PAYMENT_PROVIDER === "stripe") return "stripe";
  return e.LEMONSQUEEZY_API_KEY ? "lemonsqueezy" : "simulator";
}
