import { findVariant } from "@/lib/config/pricing";
import { grantBonusPurchase } from "@/lib/credits";
import type { OrderAttributes } from "@/lib/billing/provider-types";
import type { PaymentEventHandler } from "./types";

/**
 * order_created: a paid order for a bonus package variant grants its credits, once per order id
 * (whatever the number of deliveries). Orders for plans are the first payment of a subscription and
 * are handled by the subscription events; other orders are acknowledged and ignored.
 */
export const handleOrderCreated: PaymentEventHandler = async (ctx) => {
  const a = ctx.event.data.attributes as OrderAttributes;
  const variantId = String(a.first_order_item?.variant_id ?? "");
  const match = findVariant(variantId);
  if (!match || match.kind !== "bonus") {
    return { status: "ignored", result: match ? "subscription order; handled by the subscription events" : `variant ${variantId} is not in the pricing catalog` };
  }
  if (a.status && a.status !== "paid") return { status: "ignored", result: `order status ${a.status}; nothing granted` };
  const { granted, purchaseId } = await grantBonusPurchase({
    userId: ctx.userId,
    orderId: ctx.event.data.id,
    variantId,
    credits: match.bonusPackage.credits,
    price: typeof a.total === "number" ? a.total / 100 : match.bonusPackage.price,
  });
  return { status: "processed", result: granted ? `granted ${match.bonusPackage.credits} bonus credits (${purchaseId})` : "order already granted" };
};
