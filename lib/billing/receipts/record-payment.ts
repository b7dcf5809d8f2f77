import { randomUUID } from "node:crypto";
import { takeBackPayment, type TakeBack } from "@/lib/credits";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";

export type PaymentKind = "pack" | "plan" | "renewal";

export interface PaymentRecord {
  userId: string;
  provider: string;
  /** The provider's order id (a pack) or subscription invoice id (a plan payment, a renewal). */
  providerPaymentId: string;
  kind: PaymentKind;
  description: string;
  /** Cents. */
  amount: number;
  currency: string;
  receiptUrl?: string | null;
  /** What it bought, once known: the credits and where they went. */
  credits?: number;
  bonusPurchaseId?: string | null;
  allocationCycle?: string | null;
  paidAt: Date;
  /** Refunded so far (cents), when the event that records it is a refund. */
  refundedAmount?: number;
  /** The customer at the provider who paid (Stripe: whose saved card auto-recharge may charge). */
  providerCustomerId?: string | null;
}

/**
 * Records a payment once per provider id (a receipt), whichever of its events arrives first: what a
 * later event knows is added (the credits it bought, the receipt link), nothing known is lost, and
 * the refunded amount only grows. Answers the payment's id and its refunded amount so far.
 */
export async function recordPayment(input: PaymentRecord, tx?: Prisma.TransactionClient): Promise<{ id: string; refundedAmount: number }> {
  const client = tx ?? (await db());
  const [row] = await client.$queryRaw<{ id: string; refunded_amount: number }[]>`
    INSERT INTO payments (id, user_id, provider, provider_payment_id, kind, description, amount, currency, receipt_url, credits,
                          bonus_purchase_id, allocation_cycle, paid_at, refunded_amount, provider_customer_id, created_at, updated_at)
    VALUES (${randomUUID()}::text, ${input.userId}::text, ${input.provider}::text, ${input.providerPaymentId}::text, ${input.kind}::text,
            ${input.description}::text, ${Math.max(0, Math.trunc(input.amount))}::int, ${input.currency.toUpperCase()}::text,
            ${input.receiptUrl ?? null}::text, ${input.credits ?? 0}::int, ${input.bonusPurchaseId ?? null}::text,
            ${input.allocationCycle ?? null}::text, ${input.paidAt}::timestamptz, 0, ${input.providerCustomerId ?? null}::text, now(), now())
    ON CONFLICT (provider, provider_payment_id) DO UPDATE SET
      credits = GREATEST(payments.credits, EXCLUDED.credits),
      bonus_purchase_id = COALESCE(payments.bonus_purchase_id, EXCLUDED.bonus_purchase_id),
      allocation_cycle = COALESCE(payments.allocation_cycle, EXCLUDED.allocation_cycle),
      receipt_url = COALESCE(EXCLUDED.receipt_url, payments.receipt_url),
      provider_customer_id = COALESCE(payments.provider_customer_id, EXCLUDED.provider_customer_id),
      amount = GREATEST(payments.amount, EXCLUDED.amount),
      updated_at = now()
    RETURNING id, refunded_amount`;
  return { id: row.id, refundedAmount: Math.max(Number(row.refunded_amount), input.refundedAmount ?? 0) };
}

/**
 * Records a payment, then takes back what its refunds so far (this event's amount, or one that
 * arrived before the payment's credits) call for. The take-back is its own statement after the
 * payment's row committed: the credits it takes back must exist first.
 */
export async function recordPaymentAndTakeBack(input: PaymentRecord, at: Date): Promise<{ paymentId: string; takeBack: TakeBack | null }> {
  const { id, refundedAmount } = await recordPayment(input);
  if (refundedAmount <= 0) return { paymentId: id, takeBack: null };
  return { paymentId: id, takeBack: await takeBackPayment({ paymentId: id, refundedAmount, at }) };
}
