import { env } from "@/lib/config/env";

/** The provider payments are recorded under: Lemon Squeezy when its API key is set, else the local simulator. */
export function paymentProviderName(): "lemonsqueezy" | "simulator" {
  return env().LEMONSQUEEZY_API_KEY ? "lemonsqueezy" : "simulator";
}
