import { env } from "@/lib/config/env";
import { findVariant } from "@/lib/config/pricing";
import { paymentProviderName } from "../payment-provider/payment-provider-name";
import type { PaymentEventOutcome } from "../payment-provider/payment-event-outcome";
import type { InvoiceAttributes, OrderAttributes } from "../payment-provider/provider-types";
import { recordPaymentAndTakeBack, type PaymentKind } from "./record-payment";
import { tellPaymentEvent } from "./tell-payment-event";

/** What a refund event says was refunded so far (cents): refunded_amount, or the total when fully refunded. */
export function refundedSoFar(a: { refunded_amount?: unknown; total?: unknown; status?: unknown; refunded?: unknown }): number {
  const total = typeof a.total === "number" ? a.total : 0;
  const amount = typeof a.refunded_amount === "number" ? a.refunded_amount : 0;
  if (amount > 0) return amount;
  return a.status === "refunded" || a.refunded === true ? total : 0;
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
  const variantId = String(input.order.attributes.first_order_item?.variant_id ?? "");
  if (findVariant(variantId)?.kind === "plan") {
    return { status: "ignored", result: "a subscription's payment is refunded through its invoice (subscription_payment_refunded)" };
  }
  return refundPayment(input.userId, input.order.id, input.order.attributes, input.occurredAt, "pack", describeVariant(variantId));
}

/** subscription_payment_refunded: the invoice's payment, and the allocation it paid for, the same way. */
export function refundInvoice(input: {
  userId: string;
  invoice: { id: string; attributes: InvoiceAttributes };
  occurredAt: Date;
}): Promise<PaymentEventOutcome> {
  const a = input.invoice.attributes;
  const kind: PaymentKind = a.billing_reason === "initial" ? "plan" : "renewal";
  return refundPayment(input.userId, input.invoice.id, a, input.occurredAt, kind, "Subscription payment");
}

/** The refund of one payment (an order or an invoice): recorded on its receipt, then what it bought taken back. */
async function refundPayment(
  userId: string,
  providerPaymentId: string,
  a: OrderAttributes | InvoiceAttributes,
  occurredAt: Date,
  kind: PaymentKind,
  description: string,
): Promise<PaymentEventOutcome> {
  const refunded = refundedSoFar(a);
  const provider = paymentProviderName();
  const amount = typeof a.total === "number" ? a.total : 0;
  const currency = typeof a.currency === "string" ? a.currency.toUpperCase() : "USD";
  const result = await recordPaymentAndTakeBack(
    {
      userId,
      provider,
      providerPaymentId,
      kind,
      description,
      amount,
      currency,
      receiptUrl: receiptUrlOf(a),
      paidAt: timeOf(a.created_at) ?? occurredAt,
      refundedAmount: refunded,
    },
    timeOf(a.refunded_at) ?? timeOf(a.updated_at) ?? occurredAt,
  );
  if (refunded > 0) {
    const t = result.takeBack?.outcome === "taken_back" ? result.takeBack : null;
    // One event per refunded total (a second partial refund is a new fact; the same one delivered again is not).
    await tellPaymentEvent({
      accountId: userId,
      type: "payment.refunded",
      factKey: `${provider}:${providerPaymentId}:${refunded}`,
      data: {
        paymentId: result.paymentId,
        kind,
        description,
        amount,
        refundedAmount: refunded,
        currency,
        full: amount > 0 && refunded >= amount,
        creditsTakenBack: t?.taken ?? 0,
        creditsOwed: t?.owed ?? 0,
      },
    });
  }
  return outcome(result, refunded);
}

/** A provider timestamp, or null when absent or not a time. */
export function timeOf(value: unknown): Date | null {
  return typeof value === "string" && !Number.isNaN(Date.parse(value)) ? new Date(value) : null;
}

/** A catalog variant's name for a receipt. */
export function describeVariant(variantId: string): string {
  const match = findVariant(variantId);
  if (!match) return `Variant ${variantId}`;
  if (match.kind === "bonus") return `${match.bonusPackage.credits.toLocaleString("en-US")} bonus credits`;
  return `${match.tier.name} plan (${match.billingPeriod})`;
}

/**
 * The provider's receipt or invoice link (urls.receipt on orders, urls.invoice_url on invoices):
 * https only, or the configured Stripe simulator's own pages (STRIPE_API_BASE's origin).
 */
export function receiptUrlOf(a: Record<string, unknown>): string | null {
  const urls = a.urls as Record<string, unknown> | null | undefined;
  const url = urls?.receipt ?? urls?.invoice_url;
  if (typeof url !== "string") return null;
  if (/^https:\/\//.test(url)) return url;
  const simulator = env().STRIPE_API_BASE;
  return simulator && URL.canParse(url) && new URL(url).origin === new URL(simulator).origin ? url : null;
}
