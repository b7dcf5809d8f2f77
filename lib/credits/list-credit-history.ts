import type { z } from "zod";
import type { creditHistoryResponse, creditTransactionSchema } from "./schemas";
import { db } from "@/lib/db/client";

export type CreditHistoryEntry = z.infer<typeof creditTransactionSchema>;
export type CreditHistory = z.infer<typeof creditHistoryResponse>;

/** One page of the user's ledger for a calendar year (UTC), newest first, with the year's count and every year that has rows. */
export async function listCreditHistory(userId: string, page: { limit: number; offset: number; year: number }): Promise<CreditHistory> {
  const prisma = await db();
  const where = {
    userId,
    createdAt: { gte: new Date(Date.UTC(page.year, 0, 1)), lt: new Date(Date.UTC(page.year + 1, 0, 1)) },
  };
  const [rows, totalCount, years] = await Promise.all([
    prisma.creditTransaction.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: page.limit,
      skip: page.offset,
      select: { id: true, amount: true, balanceAfter: true, type: true, operation: true, metadata: true, createdAt: true },
    }),
    prisma.creditTransaction.count({ where }),
    prisma.$queryRaw<{ year: number }[]>`
      SELECT DISTINCT EXTRACT(YEAR FROM created_at AT TIME ZONE 'UTC')::int AS year
      FROM credit_transactions WHERE user_id = ${userId}::text ORDER BY year ASC`,
  ]);
  return {
    transactions: rows.map((r) => ({
      id: r.id,
      amount: r.amount,
      balanceAfter: r.balanceAfter,
      // The ledger writes only the five SPEC types (credit_transactions.type is checked in the writers).
      type: r.type as CreditHistoryEntry["type"],
      operation: r.operation,
      metadata: r.metadata && typeof r.metadata === "object" && !Array.isArray(r.metadata) ? (r.metadata as Record<string, unknown>) : {},
      createdAt: r.createdAt.toISOString(),
    })),
    totalCount,
    availableYears: years.map((y) => Number(y.year)),
  };
}
