import { randomUUID } from "node:crypto";
import { pricingCatalog } from "@/lib/config/pricing";
import { metrics } from "@/lib/metrics";
import type { Tx } from "./ledger";

/**
 * Inserts a bonus purchase (a bought package, or bonus credits an operator granted) in the caller's
 * transaction, once per order id: the purchase's id, or null when that order already has one. It
 * expires after pricingCatalog().bonusExpiryDays unless the caller says when.
 */
export async function insertBonusPurchase(
  tx: Tx,
  input: {
    userId: string;
    orderId: string;
    variantId: string;
    credits: number;
    price?: number | null;
    expiresAt?: Date;
    /** Credits that went to the account's debt on arrival (payDebt): the purchase holds the rest. */
    paidToDebt?: number;
  },
): Promise<{ id: string; expiresAt: Date } | null> {
  const id = randomUUID();
  const expiresAt = input.expiresAt ?? new Date(Date.now() + pricingCatalog().bonusExpiryDays * 86_400_000);
  const inserted = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO bonus_purchases (id, user_id, order_id, variant_id, credits, remaining, price, expires_at, created_at)
    VALUES (${id}::text, ${input.userId}::text, ${input.orderId}::text, ${input.variantId}::text, ${input.credits}::int, ${input.credits - (input.paidToDebt ?? 0)}::int,
            ${input.price ?? null}::numeric, ${expiresAt}::timestamptz, now())
    ON CONFLICT (order_id) DO NOTHING
    RETURNING id`;
  return inserted.length ? { id, expiresAt } : null;
}

/** Counts granted credits in the metrics: called once the grant's transaction has committed. */
export function countCreditsGranted(source: "purchase" | "adjustment" | "monthly_reset", credits: number): void {
  if (credits > 0) metrics().creditsGranted.inc({ source }, credits);
}
