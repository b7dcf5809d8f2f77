import { findVariant } from "@/lib/config/pricing";
import { paymentProviderName } from "../payment-provider/payment-provider-name";
import type { PaymentEventOutcome } from "../payment-provider/payment-event-outcome";
import type { InvoiceAttributes, OrderAttributes } from "../payment-provider/provider-types";
import { recordPaymentAndTakeBack, type PaymentKind } from "./record-payment";

/** What a refund event says was refunded so far (cents): refunded_amount, or the total when fully refunded. */
export function refundedSoFar(a: { refunded_amount?: unknown; total?: unknown; status?: unknown; refunded?: unknown }): number {
  const total = typeof a.total === "number" ? a.total : 0;
  const amount = typeof a.refunded_amount === "number" ? a.refunded_amount : 0;
  if (amount > 0) return amount;
  return a.status === "refunded" || a.refunded === true ? total : 0;
}

function refundedAt(a: { refunded_at?: unknown; updated_at?: unknown }, fallback: Date): Date {
  for (const value of [a.refunded_at, a.updated_at]) {
    if (typeof value === "string" && !Number.isNaN(Date.parse(value))) return new Date(value);
  }
  return fallback;
}

function outcome(result: Awaited<ReturnType<typeof recordPaymentAndTakeBack>>, refunded: number): PaymentEventOutcome {
  const t = result.takeBack;
  if (refunded <= 0) return { status: "ignored", result: "no amount refunded; nothing taken back" };
  if (!t || t.outcome !== "taken_back") return { status: "processed", result: "refund recorded; nothing more to take back" };
  return { status: "processed", result: `refund: ${t.taken} credits taken back${t.owed ? `, ${t.owed} owed (already spent)` : ""}` };
}

/**
 * order_refunded (full or partial): the order's payment is recorded as refunded and what it bought is
 * taken back in proportion (prisma/functions/take_back_payment.sql). A refund that arrives before
 * its order_created is kept on the payment and applied when the credits are granted.
 */
export async function refundOrder(input: {
  userId: string;
  order: { id: string; attributes: OrderAttributes };
  occurredAt: Date;
}): Promise<PaymentEventOutcome> {
  const a = input.order.attributes;
  const variantId = String(a.first_order_item?.variant_id ?? "");
  const match = findVariant(variantId);
  if (match?.kind === "plan") {
    return { status: "ignored", result: "a subscription's payment is refunded through its invoice (subscription_payment_refunded)" };
  }
  const kind: PaymentKind = "pack";
  const refunded = refundedSoFar(a);
  const result = await recordPaymentAndTakeBack(
    {
      userId: input.userId,
      provider: paymentProviderName(),
      providerPaymentId: input.order.id,
      kind,
      description: describeVariant(variantId),
      amount: typeof a.total === "number" ? a.total : 0,
      currency: typeof a.currency === "string" ? a.currency : "USD",
      receiptUrl: receiptUrlOf(a),
      paidAt: typeof a.created_at === "string" ? new Date(a.created_at) : input.occurredAt,
      refundedAmount: refunded,
    },
    refundedAt(a, input.occurredAt),
  );
  return outcome(result, refunded);
}

/** subscription_payment_refunded: the invoice's payment, and the allocation it paid for, the same way. */
export async function refundInvoice(input: {
  userId: string;
  invoice: { id: string; attributes: InvoiceAttributes };
  occurredAt: Date;
}): Promise<PaymentEventOutcome> {
  const a = input.invoice.attributes;
  const refunded = refundedSoFar(a);
  const result = await recordPaymentAndTakeBack(
    {
      userId: input.userId,
      provider: paymentProviderName(),
      providerPaymentId: input.invoice.id,
      kind: a.billing_reason === "initial" ? "plan" : "renewal",
      description: "Subscription payment",
      amount: typeof a.total === "number" ? a.total : 0,
      currency: typeof a.currency === "string" ? a.currency : "USD",
      receiptUrl: receiptUrlOf(a),
      paidAt: typeof a.created_at === "string" ? new Date(a.created_at) : input.occurredAt,
      refundedAmount: refunded,
    },
    refundedAt(a, input.occurredAt),
  );
  return outcome(result, refunded);
}

/** A catalog variant's name for a receipt. */
export function describeVariant(variantId: string): string {
  const match = findVariant(variantId);
  if (!match) return `Variant ${variantId}`;
  if (match.kind === "bonus") return `${match.bonusPackage.credits.toLocaleString("en-US")} bonus credits`;
  return `${match.tier.name} plan (${match.billingPeriod})`;
}

/** The provider's receipt or invoice link (Lemon Squeezy: urls.receipt on orders, urls.invoice_url on invoices). */
export function receiptUrlOf(a: Record<string, unknown>): string | null {
  const urls = a.urls as Record<string, unknown> | null | undefined;
  const url = urls?.receipt ?? urls?.invoice_url;
  return typeof url === "string" && /^https:\/\//.test(url) ? url : null;
}
