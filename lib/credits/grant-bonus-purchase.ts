import { pricingCatalog } from "@/lib/config/pricing";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { countCreditsGranted, insertBonusPurchase } from "./insert-bonus-purchase";
import { heldBonusCredits, insertLedgerRows, insertOperationOnce, lockBalance, payDebt } from "./ledger";

export interface BonusPurchaseInput {
  userId: string;
  /** The payment provider's order id: the grant applies once per order. */
  orderId: string;
  variantId: string;
  credits: number;
  price?: number;
  /** Default: now + pricingCatalog().bonusExpiryDays. */
  expiresAt?: Date;
}

/**
 * Records a bonus credit purchase and its `purchase` ledger row in one transaction, once per order id
 * (a redelivered order_created answers granted false with the existing purchase's id).
 */
export async function grantBonusPurchase(input: BonusPurchaseInput): Promise<{ granted: boolean; purchaseId: string }> {
  if (!input.orderId) throw new AppError("bad_request", "orderId is required");
  if (!Number.isInteger(input.credits) || input.credits <= 0)
    throw new AppError("bad_request", `Bonus credits must be a positive integer, got ${input.credits}`);
  const expiresAt = input.expiresAt ?? new Date(Date.now() + pricingCatalog().bonusExpiryDays * 86_400_000);
  const prisma = await db();
  const existing = await prisma.bonusPurchase.findUnique({ where: { orderId: input.orderId }, select: { id: true } });
  if (existing) return { granted: false, purchaseId: existing.id };
  const result = await prisma.$transaction(async (tx) => {
    const balance = await lockBalance(tx, input.userId);
    const existing = await tx.bonusPurchase.findUnique({ where: { orderId: input.orderId }, select: { id: true } });
    if (existing) return { granted: false, purchaseId: existing.id };
    const paidToDebt = await payDebt(tx, balance, input.userId, input.credits);
    const purchase = await insertBonusPurchase(tx, { ...input, expiresAt, paidToDebt });
    if (!purchase) {
      const winner = await tx.bonusPurchase.findUnique({ where: { orderId: input.orderId }, select: { id: true } });
      return { granted: false, purchaseId: winner?.id ?? "" };
    }
    const operationId = await insertOperationOnce(tx, {
      userId: input.userId,
      idempotencyKey: `grant:order:${input.orderId}`,
      kind: "grant",
      amount: input.credits,
      status: "applied",
      details: { orderId: input.orderId, variantId: input.variantId, bonusPurchaseId: purchase.id },
    });
    const held = balance.subscriptionCredits + (await heldBonusCredits(tx, input.userId)) - (balance.debt - paidToDebt);
    await insertLedgerRows(tx, [
      {
        userId: input.userId,
        amount: input.credits,
        balanceAfter: held,
        type: "purchase",
        operation: "bonus_purchase",
        metadata: {
          orderId: input.orderId,
          variantId: input.variantId,
          expiresAt: expiresAt.toISOString(),
          ...(input.price !== undefined ? { price: input.price } : {}),
          ...(paidToDebt > 0 ? { debtPaid: paidToDebt } : {}),
        },
        bonusPurchaseId: purchase.id,
        operationId,
      },
    ]);
    return { granted: true, purchaseId: purchase.id };
  });
  if (result.granted) countCreditsGranted("purchase", input.credits);
  return result;
}
