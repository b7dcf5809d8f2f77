import { refundOrder } from "@/lib/billing/receipts/refund-payment";
import type { OrderAttributes } from "@/lib/billing/payment-provider/provider-types";
import type { PaymentEventHandler } from "./types";

/** order_refunded (full or partial): a pack's refund takes back its credits in proportion (lib/billing/receipts/refund-payment.ts). */
export const handleOrderRefunded: PaymentEventHandler = (ctx) =>
  refundOrder({
    userId: ctx.userId,
    order: { id: ctx.event.data.id, attributes: ctx.event.data.attributes as OrderAttributes },
    occurredAt: ctx.occurredAt,
  });
