import { AppError } from "@/lib/errors";
import { insertBonusPurchase } from "./insert-bonus-purchase";
import { heldBonusCredits, insertLedgerRows, insertOperationOnce, lockBalance, payDebt, type LedgerRow, type Tx } from "./ledger";

export type CreditBucket = "subscription" | "bonus";

export interface AdjustmentInput {
  userId: string;
  /** Credits to add (positive) or remove (negative); never 0. */
  amount: number;
  bucket: CreditBucket;
  /** The same key applies once, whatever the number of attempts. */
  idempotencyKey: string;
  /** Stored on the ledger rows and the operation (who, why). */
  metadata: Record<string, unknown>;
}

export interface AdjustmentResult {
  /** False when this key was applied before (nothing changed now). */
  applied: boolean;
  operationId: string;
  balances: { subscription: number; bonus: number };
}

/**
 * A manual correction of a user's credits, inside the caller's transaction (so the caller's audit row
 * commits or rolls back with it): `adjustment` ledger rows written with the balance change, under the
 * balance row lock. Subscription credits move by `amount`; a bonus increase is a new bonus purchase
 * (expiring like a bought package), a bonus decrease draws from the purchases that expire first. A
 * change that would take a bucket below zero is refused (400) and changes nothing. The key is
 * recorded in credit_operations: a repeat answers the first result; a repeat with other values is 409.
 */
export async function adjustCredits(tx: Tx, input: AdjustmentInput): Promise<AdjustmentResult> {
  const { userId, amount, bucket } = input;
  if (!Number.isInteger(amount) || amount === 0) throw new AppError("validation_failed", "Adjustment amount must be a non-zero integer");
  const balance = await lockBalance(tx, userId);
  const idempotencyKey = `adjust:${input.idempotencyKey}`;
  const operationId = await insertOperationOnce(tx, {
    userId,
    idempotencyKey,
    kind: "adjustment",
    amount,
    status: "applied",
    details: { bucket, ...input.metadata },
  });
  if (!operationId) {
    const first = await tx.creditOperation.findUnique({ where: { idempotencyKey } });
    const firstBucket = (first?.details as { bucket?: string } | null)?.bucket;
    if (!first || first.userId !== userId || first.kind !== "adjustment" || first.amount !== amount || firstBucket !== bucket) {
      throw new AppError("conflict", "Idempotency key already used for a different adjustment");
    }
    return {
      applied: false,
      operationId: first.id,
      balances: { subscription: balance.subscriptionCredits, bonus: await heldBonusCredits(tx, userId) },
    };
  }

  const bonusBefore = await heldBonusCredits(tx, userId);
  const rows: LedgerRow[] = [];
  const row = (delta: number, balanceAfter: number, bonusPurchaseId: string | null): LedgerRow => ({
    userId,
    amount: delta,
    balanceAfter,
    type: "adjustment",
    operation: "admin_adjustment",
    metadata: { bucket, ...input.metadata },
    bonusPurchaseId,
    operationId,
  });
  let subscription = balance.subscriptionCredits;
  let bonus = bonusBefore;
  // Credits added pay the account's debt first (a refund took back credits already spent).
  const paidToDebt = amount > 0 ? await payDebt(tx, balance, userId, amount) : 0;
  const debt = balance.debt - paidToDebt;

  if (bucket === "subscription") {
    if (subscription + amount < 0) {
      throw new AppError(
        "bad_request",
        `Adjustment refused: subscription credits would go below zero (balance ${subscription}, adjustment ${amount})`,
      );
    }
    await tx.$executeRaw`UPDATE credit_balances SET subscription_credits = subscription_credits + ${amount - paidToDebt}::int, updated_at = now() WHERE user_id = ${userId}::text`;
    subscription += amount - paidToDebt;
    rows.push(row(amount, subscription + bonus - debt, null));
  } else if (amount > 0) {
    // The adjustment's idempotency key is its order id: applied once already, so it never conflicts.
    const purchase = await insertBonusPurchase(tx, {
      userId,
      orderId: idempotencyKey,
      variantId: "adjustment",
      credits: amount,
      paidToDebt,
    });
    bonus += amount - paidToDebt;
    rows.push(row(amount, subscription + bonus - debt, purchase?.id ?? null));
  } else {
    if (bonus + amount < 0) {
      throw new AppError("bad_request", `Adjustment refused: bonus credits would go below zero (balance ${bonus}, adjustment ${amount})`);
    }
    // The bonus part of the draw order (prisma/functions/draw_credits.sql: it writes the rows of its
    // draws too): no subscription credits offered.
    const meta = { bucket, ...input.metadata };
    const [drawn] = await tx.$queryRaw<{ bonus: number }[]>`
      SELECT bonus FROM draw_credits(${userId}::text, ${-amount}::int, 0, true, ${operationId}::text, 'adjustment', 'admin_adjustment',
                                     ${JSON.stringify(meta)}::jsonb, ${subscription + bonus - debt}::int)`;
    bonus -= Number(drawn.bonus);
  }
  await insertLedgerRows(tx, rows);
  // Granted credits are counted by the caller once its transaction commits (countCreditsGranted).
  return { applied: true, operationId, balances: { subscription, bonus } };
}
