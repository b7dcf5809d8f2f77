import { db } from "@/lib/db/client";

/**
 * Bonus credits held by each of these accounts, by the database's one rule (`held_bonus`), in one
 * query; an account with none is absent.
 */
export async function heldBonusByAccount(accountIds: string[]): Promise<Map<string, number>> {
  if (accountIds.length === 0) return new Map();
  const prisma = await db();
  const rows = await prisma.$queryRaw<{ account: string; credits: number }[]>`
    SELECT a.account, h.credits FROM unnest(${accountIds}::text[]) AS a(account), LATERAL held_bonus(a.account) h
     WHERE h.credits > 0`;
  return new Map(rows.map((r) => [r.account, Number(r.credits)]));
}
