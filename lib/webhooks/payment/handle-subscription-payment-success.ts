import { confirmSubscriptionPayment } from "@/lib/billing/subscriptions/confirm-subscription-payment";
import { invoiceEvent } from "./payload";
import type { PaymentEventHandler } from "./types";

/** subscription_payment_success: the payment is confirmed and the cycle's credits allocated once (lib/billing/subscriptions/confirm-subscription-payment.ts). */
export const handleSubscriptionPaymentSuccess: PaymentEventHandler = (ctx) => confirmSubscriptionPayment(invoiceEvent(ctx));
