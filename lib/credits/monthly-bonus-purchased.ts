import { db } from "@/lib/db/client";
import { monthStart, nextMonthStart } from "./ledger";

/** Bonus credits the user purchased in the calendar month (UTC) of `now`, for the monthly purchase limit. */
export async function monthlyBonusPurchased(userId: string, now: Date = new Date()): Promise<number> {
  const prisma = await db();
  const result = await prisma.bonusPurchase.aggregate({
    where: { userId, createdAt: { gte: monthStart(now), lt: nextMonthStart(now) } },
    _sum: { credits: true },
  });
  return result._sum.credits ?? 0;
}
