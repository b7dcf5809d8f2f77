import { findVariant } from "@/lib/config/pricing";
import { grantBonusPurchase } from "@/lib/credits";
import type { PaymentEventOutcome } from "../payment-provider/payment-event-outcome";
import { paymentProviderName } from "../payment-provider/payment-provider-name";
import { recordPaymentAndTakeBack } from "../receipts/record-payment";
import { describeVariant, receiptUrlOf, timeOf } from "../receipts/refund-payment";
import { tellPaymentEvent } from "../receipts/tell-payment-event";
import type { ProviderOrder } from "../payment-provider/provider-types";

/**
 * A paid order for a bonus package variant grants its credits, once per order id (whatever the number
 * of deliveries or reconciliation runs). Orders for plans are the first payment of a subscription and
 * are handled by the subscription events; other orders are acknowledged and ignored.
 */
export async function grantBonusOrder(input: {
  userId: string;
  order: ProviderOrder;
}): Promise<PaymentEventOutcome & { granted: boolean }> {
  const a = input.order.attributes;
  const variantId = String(a.first_order_item?.variant_id ?? "");
  const match = findVariant(variantId);
  if (!match || match.kind !== "bonus") {
    return {
      status: "ignored",
      granted: false,
      result: match ? "subscription order; handled by the subscription events" : `variant ${variantId} is not in the pricing catalog`,
    };
  }
  if (a.status && a.status !== "paid") return { status: "ignored", granted: false, result: `order status ${a.status}; nothing granted` };
  const { granted, purchaseId } = await grantBonusPurchase({
    userId: input.userId,
    orderId: input.order.id,
    variantId,
    credits: match.bonusPackage.credits,
    price: typeof a.total === "number" ? a.total / 100 : match.bonusPackage.price,
  });
  // The receipt, with what it bought; a refund that arrived before this order takes its credits back now.
  const provider = paymentProviderName();
  const amount = typeof a.total === "number" ? a.total : Math.round(match.bonusPackage.price * 100);
  const currency = typeof a.currency === "string" ? a.currency.toUpperCase() : "USD";
  const { takeBack, paymentId } = await recordPaymentAndTakeBack(
    {
      userId: input.userId,
      provider,
      providerPaymentId: input.order.id,
      kind: "pack",
      description: describeVariant(variantId),
      amount,
      currency,
      receiptUrl: receiptUrlOf(a),
      credits: match.bonusPackage.credits,
      bonusPurchaseId: purchaseId,
      paidAt: timeOf(a.created_at) ?? new Date(),
      providerCustomerId: a.customer_id ? String(a.customer_id) : null,
    },
    new Date(),
  );
  await tellPaymentEvent({
    accountId: input.userId,
    type: "credits.purchased",
    factKey: `${provider}:${input.order.id}`,
    data: { paymentId, credits: match.bonusPackage.credits, amount, currency, description: describeVariant(variantId) },
  });
  const refunded = takeBack?.outcome === "taken_back" ? `; refunded before: ${takeBack.taken} taken back` : "";
  return {
    status: "processed",
    granted,
    result: (granted ? `granted ${match.bonusPackage.credits} bonus credits (${purchaseId})` : "order already granted") + refunded,
  };
}
