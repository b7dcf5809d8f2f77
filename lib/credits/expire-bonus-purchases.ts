import { randomUUID } from "node:crypto";
import { db } from "@/lib/db/client";
import { heldBonusCredits, insertLedgerRows, lockBalance } from "./ledger";

/**
 * Expires bonus purchases past their expiry: the remaining credits leave with an `adjustment` ledger
 * row (amount -remaining) and `expiredAt` is set. One short transaction per purchase under its user's
 * balance row lock, so a concurrent charge never spends credits that are being expired. Purchases that
 * were used up before expiring are only marked. Re-runnable: a purchase is touched again only if
 * credits came back to it (a refund) after it expired. Returns the number of purchases expired.
 */
export async function expireBonusPurchases(now: Date = new Date()): Promise<{ expiredCount: number }> {
  const prisma = await db();
  // Used-up purchases: only mark them.
  const marked = await prisma.bonusPurchase.updateMany({
    where: { expiresAt: { lte: now }, expiredAt: null, remaining: 0 },
    data: { expiredAt: now },
  });
  let expiredCount = marked.count;
  const due = await prisma.bonusPurchase.findMany({
    where: { expiresAt: { lte: now }, remaining: { gt: 0 } },
    select: { id: true, userId: true },
    orderBy: { expiresAt: "asc" },
  });
  for (const purchase of due) {
    const expired = await prisma.$transaction(async (tx) => {
      await lockBalance(tx, purchase.userId);
      const rows = await tx.$queryRaw<{ remaining: number }[]>`
        SELECT remaining FROM bonus_purchases WHERE id = ${purchase.id}::text AND remaining > 0 AND expires_at <= ${now}::timestamptz FOR UPDATE`;
      const remaining = Number(rows[0]?.remaining ?? 0);
      if (remaining === 0) return false;
      await tx.$executeRaw`
        UPDATE bonus_purchases SET remaining = 0, expired_at = COALESCE(expired_at, ${now}::timestamptz) WHERE id = ${purchase.id}::text`;
      const operationId = randomUUID();
      await tx.$executeRaw`
        INSERT INTO credit_operations (id, user_id, idempotency_key, kind, amount, status, details, created_at, updated_at)
        VALUES (${operationId}::text, ${purchase.userId}::text, ${`expire:${purchase.id}:${operationId}`}::text, 'expire', ${-remaining}::int, 'applied',
                ${JSON.stringify({ bonusPurchaseId: purchase.id })}::jsonb, now(), now())`;
      const sub = (
        await tx.$queryRaw<
          { sub: number }[]
        >`SELECT subscription_credits - debt AS sub FROM credit_balances WHERE user_id = ${purchase.userId}::text`
      )[0].sub;
      await insertLedgerRows(tx, [
        {
          userId: purchase.userId,
          amount: -remaining,
          balanceAfter: Number(sub) + (await heldBonusCredits(tx, purchase.userId)),
          type: "adjustment",
          operation: "bonus_expiry",
          metadata: { reason: "bonus_credits_expired", bonusPurchaseId: purchase.id },
          bonusPurchaseId: purchase.id,
          operationId,
        },
      ]);
      return true;
    });
    if (expired) expiredCount += 1;
  }
  return { expiredCount };
}
