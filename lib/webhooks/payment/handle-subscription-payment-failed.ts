import { recordPaymentFailure } from "@/lib/billing/subscriptions/record-payment-failure";
import { invoiceEvent } from "./payload";
import type { PaymentEventHandler } from "./types";

/** subscription_payment_failed: the failure is recorded and the user notified (lib/billing/subscriptions/record-payment-failure.ts). */
export const handleSubscriptionPaymentFailed: PaymentEventHandler = (ctx) => recordPaymentFailure(invoiceEvent(ctx), ctx.log);
