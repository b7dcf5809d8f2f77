import { grantBonusOrder } from "@/lib/billing/checkout/grant-bonus-order";
import type { OrderAttributes } from "@/lib/billing/payment-provider/provider-types";
import type { PaymentEventHandler } from "./types";

/** order_created: a paid bonus package order grants its credits once per order id (lib/billing/checkout/grant-bonus-order.ts). */
export const handleOrderCreated: PaymentEventHandler = (ctx) =>
  grantBonusOrder({ userId: ctx.userId, order: { id: ctx.event.data.id, attributes: ctx.event.data.attributes as OrderAttributes } });
