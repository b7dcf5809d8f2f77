import { expect } from "vitest";
import { reserveCredits } from "@/lib/credits";
import { db } from "@/lib/db/client";
import { signIn } from "@/tests/helpers/http";
import { deliver, orderEvent } from "./fixtures";

/** The order's refund event as Lemon Squeezy sends it (cumulative refunded_amount). */
export function refundEvent(order: ReturnType<typeof orderEvent>, refunded: number, at = "2026-11-02T00:00:00.000Z") {
  const total = order.data.attributes.total;
  return {
    meta: { ...order.meta, event_name: "order_refunded" },
    data: {
      ...order.data,
      attributes: {
        ...order.data.attributes,
        status: refunded >= total ? "refunded" : "partial_refund",
        refunded: refunded >= total,
        refunded_amount: refunded,
        refunded_at: at,
        updated_at: at,
      },
    },
  };
}

/**
 * A pack of 500 refunded while `charges` charges of 20 race it, and a partial and a full refund of it
 * arrive together: the pack's 500 credits leave exactly once, split between what was left (taken)
 * and what the charges that won had spent (debt); every charge after it is refused; the ledger sums
 * to the balance (the buckets less the debt).
 */
export async function refundRacingCharges({ charges, tag }: { charges: number; tag: string }) {
  const { user } = await signIn(`refund-race-${tag}-${Date.now()}@example.com`);
  const prisma = await db();
  await prisma.user.update({ where: { id: user.id }, data: { bonusCreditsAutoUse: true } });
  const start = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
  if (start.subscriptionCredits > 0) await reserveCredits({ userId: user.id, amount: start.subscriptionCredits, operation: "chat" });
  const order = orderEvent({ id: `ord-race-${tag}-${user.id}`, userId: user.id, variantId: "local-bonus-basic-500" });
  expect((await deliver(order)).body.status).toBe("processed");

  const [results, refunds] = await Promise.all([
    Promise.allSettled(Array.from({ length: charges }, () => reserveCredits({ userId: user.id, amount: 20, operation: "chat" }))),
    Promise.all([deliver(refundEvent(order, 250)), deliver(refundEvent(order, 499))]),
  ]);
  const charged = results.filter((r) => r.status === "fulfilled").length;
  for (const r of results) {
    if (r.status === "rejected") expect((r.reason as { code: string }).code).toBe("insufficient_credits");
  }
  for (const r of refunds) expect(r.status).toBe(200);

  const balance = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
  const purchase = await prisma.bonusPurchase.findFirstOrThrow({ where: { userId: user.id } });
  const payment = await prisma.payment.findFirstOrThrow({ where: { userId: user.id } });
  const rows = await prisma.creditTransaction.findMany({ where: { userId: user.id } });
  const taken = rows.filter((r) => r.operation === "payment_refunded").reduce((s, r) => s - r.amount, 0);
  const owed = rows.filter((r) => r.operation === "refund_debt").reduce((s, r) => s - r.amount, 0);
  expect(payment).toMatchObject({ status: "refunded", refundedAmount: 499, creditsTakenBack: 500 });
  expect(taken + owed).toBe(500);
  expect(owed).toBe(20 * charged);
  expect(balance.debt).toBe(owed);
  expect(purchase.remaining).toBe(0);
  expect(rows.reduce((s, r) => s + r.amount, 0)).toBe(balance.subscriptionCredits + purchase.remaining - balance.debt);
  return { charged, taken, owed };
}
