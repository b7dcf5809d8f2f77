import { clearPaymentFailure } from "@/lib/billing/subscriptions/clear-payment-failure";
import { invoiceEvent } from "./payload";
import type { PaymentEventHandler } from "./types";

/** subscription_payment_recovered: a recorded failed payment is cleared (lib/billing/subscriptions/clear-payment-failure.ts). */
export const handleSubscriptionPaymentRecovered: PaymentEventHandler = (ctx) => clearPaymentFailure(invoiceEvent(ctx));
