import { db } from "@/lib/db/client";

/** Unexpired bonus credits held by each of these accounts (one grouped query; an account with none is absent). */
export async function heldBonusByAccount(accountIds: string[]): Promise<Map<string, number>> {
  if (accountIds.length === 0) return new Map();
  const prisma = await db();
  const rows = await prisma.bonusPurchase.groupBy({
    by: ["userId"],
    where: { userId: { in: accountIds }, remaining: { gt: 0 }, expiresAt: { gt: new Date() } },
    _sum: { remaining: true },
  });
  return new Map(rows.map((b) => [b.userId, b._sum.remaining ?? 0]));
}
