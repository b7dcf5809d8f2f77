import { db } from "@/lib/db/client";
import { withSpan } from "@/lib/tracing";
import { AppError } from "@/lib/errors";
import { metrics } from "@/lib/metrics";
import { bonusSpendable, heldBonusCredits, insertLedgerRows, insertOperationOnce, loadCharge, lockBalance, type LedgerRow } from "./ledger";
import { UNLIMITED_CREDITS, type Draw, type Reservation } from "./types";

/** refundReservation, in a "credits.refund" span (lib/tracing). */
export function refundReservation(reservation: Reservation, options: { reason?: string } = {}): Promise<{ refunded: number; remaining: number }> {
  return withSpan("credits.refund", { "credits.amount": reservation.amount }, () => refundReservationUntraced(reservation, options));
}

/**
 * Returns a reserved charge's credits to the buckets they came from (the work it paid for failed),
 * writing `refund` ledger rows, in one transaction under the balance row lock. Only a charge still
 * `reserved` is refunded: one that was settled (its answer went out) or refunded before is left as it
 * is, so a refund racing a settlement never returns credits twice. Keyed `refund:<reservation id>`.
 * Credits returned to a bonus purchase keep its expiry (the expiry job expires them if it has passed).
 */
async function refundReservationUntraced(reservation: Reservation, options: { reason?: string } = {}): Promise<{ refunded: number; remaining: number }> {
  if (!reservation.charged || !reservation.id) return { refunded: 0, remaining: reservation.charged ? reservation.remaining : UNLIMITED_CREDITS };
  const { userId } = reservation;
  const prisma = await db();
  const result = await prisma.$transaction(async (tx) => {
    const balance = await lockBalance(tx, userId);
    const usable = async () =>
      (await tx.$queryRaw<{ sub: number }[]>`SELECT subscription_credits AS sub FROM credit_balances WHERE user_id = ${userId}::text`)[0].sub +
      (bonusSpendable(balance.bonusCreditsAutoUse) ? await heldBonusCredits(tx, userId) : 0);

    const charge = await loadCharge(tx, reservation);
    if (!charge) throw new AppError("not_found", "Reservation not found");
    if (charge.status !== "reserved") return { refunded: 0, remaining: await usable() };
    const { details } = charge;
    const total = charge.amount;

    // Plan: walk the draws backwards (last drawn, first returned).
    const returns: Draw[] = [];
    let left = total;
    for (const draw of [...details.draws].reverse()) {
      if (left === 0) break;
      const give = Math.min(draw.amount, left);
      returns.push({ bonusPurchaseId: draw.bonusPurchaseId, amount: give });
      left -= give;
    }
    const refundId = await insertOperationOnce(tx, {
      userId,
      idempotencyKey: `refund:${reservation.id}`,
      kind: "refund",
      amount: total,
      status: "applied",
      details: { reservationId: reservation.id, reason: options.reason ?? null, draws: returns },
    });
    if (!refundId) return { refunded: 0, remaining: await usable() };
    await tx.$executeRaw`UPDATE credit_operations SET status = 'refunded', updated_at = now() WHERE id = ${reservation.id}::text`;
    if (total === 0) return { refunded: 0, remaining: await usable() };

    const bonusBefore = await heldBonusCredits(tx, userId);
    const purchaseIds = returns.flatMap((r) => (r.bonusPurchaseId ? [r.bonusPurchaseId] : []));
    const live = new Set(
      purchaseIds.length === 0
        ? []
        : (
            await tx.$queryRaw<{ id: string }[]>`
              SELECT id FROM bonus_purchases WHERE id = ANY(${purchaseIds}::text[]) AND user_id = ${userId}::text AND expires_at > now()`
          ).map((p) => p.id),
    );
    for (const r of returns) {
      if (r.bonusPurchaseId) {
        await tx.$executeRaw`UPDATE bonus_purchases SET remaining = remaining + ${r.amount}::int WHERE id = ${r.bonusPurchaseId}::text AND user_id = ${userId}::text`;
      } else {
        await tx.$executeRaw`UPDATE credit_balances SET subscription_credits = subscription_credits + ${r.amount}::int, updated_at = now() WHERE user_id = ${userId}::text`;
      }
    }
    // balanceAfter of each row: the held total (subscription + unexpired bonus) after that row.
    let held = balance.subscriptionCredits + bonusBefore;
    const rows: LedgerRow[] = returns.map((r) => {
      if (!r.bonusPurchaseId || live.has(r.bonusPurchaseId)) held += r.amount;
      return {
        userId,
        amount: r.amount,
        balanceAfter: held,
        type: "refund",
        operation: details.operation,
        metadata: { ...(details.metadata ?? {}), reservationId: reservation.id, ...(options.reason ? { reason: options.reason } : {}) },
        bonusPurchaseId: r.bonusPurchaseId,
        operationId: refundId,
      };
    });
    await insertLedgerRows(tx, rows);
    return { refunded: total, remaining: await usable() };
  });
  if (result.refunded > 0) metrics().creditsRefunded.inc({ operation: reservation.operation ?? "unknown" }, result.refunded);
  return result;
}
