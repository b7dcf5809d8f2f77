import { refundInvoice } from "@/lib/billing/receipts/refund-payment";
import { invoiceEvent } from "./payload";
import type { PaymentEventHandler } from "./types";

/** subscription_payment_refunded: the invoice's allocation is taken back in proportion (lib/billing/receipts/refund-payment.ts). */
export const handleSubscriptionPaymentRefunded: PaymentEventHandler = (ctx) => refundInvoice(invoiceEvent(ctx));
