import { env } from "@/lib/config/env";
import { DEV_STRIPE_SECRET_KEY, DEV_STRIPE_WEBHOOK_SECRET, localStripeSimulatorWanted } from "@/lib/billing/payment-provider/stripe-client";
import { log } from "@/lib/log";
import { startStripeSimulator } from "./stripe-simulator";

/**
 * `npm run dev` with PAYMENT_PROVIDER=stripe and no STRIPE_SECRET_KEY: the local Stripe simulator
 * starts beside the app (127.0.0.1:STRIPE_SIMULATOR_PORT), with the development key and webhook
 * secret, sending its webhooks to this app. A port in use is logged, not fatal (another dev server
 * may run one already).
 */
export async function startLocalStripeSimulator(): Promise<void> {
  if (!localStripeSimulatorWanted()) return;
  const e = env();
  const app = (e.NEXTAUTH_URL ?? `http://127.0.0.1:${process.env.PORT || 3000}`).replace(/\/+$/, "");
  try {
    const simulator = await startStripeSimulator({
      port: e.STRIPE_SIMULATOR_PORT,
      apiKey: DEV_STRIPE_SECRET_KEY,
      webhookSecret: DEV_STRIPE_WEBHOOK_SECRET,
      webhookUrl: `${app}/api/webhooks/stripe`,
    });
    log.info("local Stripe simulator ready", { url: simulator.url, webhooks: `${app}/api/webhooks/stripe` });
  } catch (error) {
    log.warn("local Stripe simulator not started", { port: e.STRIPE_SIMULATOR_PORT, error: (error as Error).message });
  }
}
