import { verifySimulatorToken } from "@/lib/billing/payment-provider/simulator-token";
import { simulatorEnabled } from "@/lib/billing/payment-provider/payment-provider";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { deliverSimulatedEvent } from "./deliver-simulated-event";

export const REFUND_AMOUNTS = ["full", "half"] as const;
export type RefundAmount = (typeof REFUND_AMOUNTS)[number];

function readReceiptToken(token: string | null | undefined): { pid: string; uid: string } | null {
  const t = verifySimulatorToken<{ pid?: unknown; uid?: unknown }>(token);
  return t && typeof t.pid === "string" && typeof t.uid === "string" ? { pid: t.pid, uid: t.uid } : null;
}

/** What the simulator's receipt page shows for a signed receipt token (null: forged, expired or not simulated). */
export async function loadSimulatedReceipt(token: string | null | undefined) {
  const access = readReceiptToken(token);
  if (!access || !simulatorEnabled()) return null;
  const prisma = await db();
  const payment = await prisma.payment.findFirst({ where: { id: access.pid, userId: access.uid, provider: "simulator" } });
  if (!payment) return null;
  return { token: token as string, payment };
}

/**
 * The receipt page's refund buttons: what an operator does in Lemon Squeezy's dashboard. The refund
 * is delivered as the signed webhook Lemon Squeezy sends (order_refunded for a pack,
 * subscription_payment_refunded for a plan's invoice) with the cumulative refunded amount: "half"
 * refunds half of the amount on top of what was refunded, "full" the rest.
 */
export async function refundSimulatedPayment(input: { token: string; amount: RefundAmount }): Promise<string> {
  const view = await loadSimulatedReceipt(input.token);
  if (!view) throw new AppError("not_found", "Receipt not found or expired");
  const p = view.payment;
  if (p.refundedAmount >= p.amount) throw new AppError("conflict", "This payment is already refunded in full");
  const refunded = input.amount === "full" ? p.amount : Math.min(p.amount, p.refundedAmount + Math.ceil(p.amount / 2));
  const now = new Date().toISOString();
  const refund = {
    status: refunded >= p.amount ? "refunded" : "partial_refund",
    refunded: refunded >= p.amount,
    refunded_amount: refunded,
    refunded_at: now,
    total: p.amount,
    currency: p.currency,
    store_id: "simulator",
    created_at: p.paidAt.toISOString(),
    updated_at: now,
    test_mode: true,
  };
  const prisma = await db();
  if (p.kind === "pack") {
    const purchase = p.bonusPurchaseId ? await prisma.bonusPurchase.findUnique({ where: { id: p.bonusPurchaseId } }) : null;
    await deliverSimulatedEvent(
      "order_refunded",
      {
        type: "orders",
        id: p.providerPaymentId,
        attributes: { ...refund, first_order_item: { variant_id: purchase?.variantId ?? "unknown" } },
      },
      { user_id: p.userId },
    );
  } else {
    const subscription = await prisma.subscription.findFirst({ where: { userId: p.userId }, orderBy: { createdAt: "desc" } });
    await deliverSimulatedEvent(
      "subscription_payment_refunded",
      {
        type: "subscription-invoices",
        id: p.providerPaymentId,
        attributes: {
          ...refund,
          subscription_id: subscription?.providerSubscriptionId ?? "unknown",
          billing_reason: p.kind === "plan" ? "initial" : "renewal",
        },
      },
      { user_id: p.userId },
    );
  }
  return refunded >= p.amount ? "Refunded in full" : "Partial refund delivered";
}
