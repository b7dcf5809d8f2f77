import type { Prisma } from "@/lib/generated/prisma/client";
import { flags } from "@/lib/config/flags";
import { db, dbRunner } from "@/lib/db/client";
import { AppError } from "@/lib/errors";

/**
 * Shared ledger primitives. Every writer of a user's buckets (subscription credits and bonus
 * purchases) first takes the row lock on the user's credit_balances row (`lockBalance`), so under
 * READ COMMITTED each later statement of the transaction sees the latest committed buckets. The
 * single-statement fast charge takes the same row lock implicitly through its conditional UPDATE.
 */
export type Tx = Prisma.TransactionClient;

export interface LockedBalance {
  subscriptionCredits: number;
  monthlyAllocation: number;
  resetAt: Date | null;
  cycle: string | null;
  tier: string;
  bonusCreditsAutoUse: boolean;
  /** A person's wallet, or an organisation's (which has no free allocation). */
  kind: "person" | "organisation";
  /** Credits a refund took back that had been spent (the balance is the buckets less this). */
  debt: number;
}

/** Start of the calendar month (UTC) of `at`. */
export function monthStart(at: Date = new Date()): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/** Start of the next calendar month (UTC) after `at`. */
export function nextMonthStart(at: Date = new Date()): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

/** Whether this user's bonus credits may be spent: auto-use on, or the per-user toggle off system-wide. */
export function bonusSpendable(autoUse: boolean, toggleEnabled: boolean = flags().creditsUserToggle): boolean {
  return autoUse || !toggleEnabled;
}

/**
 * Runs one statement on the raw driver, outside Prisma (the charge hot path). On PostgreSQL it is a
 * named prepared statement: node-postgres' Pool.query takes a QueryConfig `{ name, text }` and then
 * parses and plans the statement once per connection instead of on every call. (The db runner's type
 * only declares the string form; the pg pool behind it accepts both.) PGlite gets the plain text.
 */
export async function queryPrepared<T>(name: string, text: string, params: unknown[]): Promise<T[]> {
  return (await dbRunner()).queryPrepared<T>(name, text, params);
}

/** The spec's insufficient-credits error (→ 402). */
export function insufficientCredits(cost: number, available: number): AppError {
  return new AppError("insufficient_credits", `Insufficient credits: this operation costs ${cost}, you have ${available} available`, {
    details: { cost, available },
  });
}

interface BalanceRow {
  subscription_credits: number;
  monthly_allocation: number;
  reset_at: Date | null;
  cycle: string | null;
  tier: string;
  bonus_credits_auto_use: boolean;
  debt: number;
  kind: string;
}

/**
 * Locks the user's balance row (FOR UPDATE), creating an empty one first if the user has none.
 * Throws not_found when the user does not exist.
 */
export async function lockBalance(tx: Tx, userId: string): Promise<LockedBalance> {
  const select = () => tx.$queryRaw<BalanceRow[]>`
    SELECT b.subscription_credits, b.monthly_allocation, b.reset_at, b.cycle, b.debt, u.tier, u.bonus_credits_auto_use, u.kind
    FROM credit_balances b JOIN users u ON u.id = b.user_id
    WHERE b.user_id = ${userId}::text
    FOR UPDATE OF b`;
  let rows = await select();
  if (rows.length === 0) {
    await tx.$executeRaw`
      INSERT INTO credit_balances (user_id, subscription_credits, monthly_allocation, updated_at)
      SELECT id, 0, 0, now() FROM users WHERE id = ${userId}::text
      ON CONFLICT (user_id) DO NOTHING`;
    rows = await select();
    if (rows.length === 0) throw new AppError("not_found", "User not found");
  }
  const r = rows[0];
  return {
    subscriptionCredits: Number(r.subscription_credits),
    monthlyAllocation: Number(r.monthly_allocation),
    resetAt: r.reset_at ? new Date(r.reset_at) : null,
    cycle: r.cycle,
    tier: r.tier,
    bonusCreditsAutoUse: Boolean(r.bonus_credits_auto_use),
    kind: r.kind === "organisation" ? "organisation" : "person",
    debt: Number(r.debt),
  };
}

/**
 * Credits that arrive pay the debt first (prisma/functions/pay_debt.sql), under the balance lock the
 * caller holds: answers how many went to the debt; the caller puts the rest into its bucket.
 */
export async function payDebt(tx: Tx, balance: LockedBalance, userId: string, arriving: number): Promise<number> {
  if (balance.debt <= 0 || arriving <= 0) return 0;
  const [row] = await tx.$queryRaw<{ paid: number }[]>`SELECT pay_debt(${userId}::text, ${arriving}::int) AS paid`;
  return Number(row.paid);
}

/** The refund behind an account's debt, for its 402 (rare: read only then). */
export async function lastRefund(userId: string): Promise<{ description: string; refundedAt: Date | null } | null> {
  const prisma = await db();
  return prisma.payment.findFirst({
    where: { userId, refundedAmount: { gt: 0 } },
    orderBy: { refundedAt: "desc" },
    select: { description: true, refundedAt: true },
  });
}

/** The 402 for an account that owes credits a refund took back (reserve_credits answered in_debt). */
export function inDebt(debt: number, refund: { description: string; refundedAt: Date | null } | null): AppError {
  const which = refund
    ? ` (the refund of ${refund.description}${refund.refundedAt ? ` on ${refund.refundedAt.toISOString().slice(0, 10)}` : ""})`
    : "";
  return new AppError(
    "insufficient_credits",
    `This account owes ${debt} credits taken back by a refunded payment${which}: credits bought or granted pay the debt first, then charges resume`,
    { details: { debt, cost: 0, available: 0 }, reason: "refund_debt" },
  );
}

/** The bonus credits the user holds (spendable or not), by the database's one rule: `held_bonus`. */
export async function heldBonusCredits(tx: Tx, userId: string): Promise<number> {
  const rows = await tx.$queryRaw<{ credits: number }[]>`SELECT h.credits FROM held_bonus(${userId}::text) h`;
  return Number(rows[0]?.credits ?? 0);
}

export interface LedgerRow {
  userId: string;
  amount: number;
  balanceAfter: number;
  type: "usage" | "purchase" | "refund" | "monthly_reset" | "adjustment";
  operation: string;
  metadata?: Record<string, unknown> | null;
  bonusPurchaseId?: string | null;
  operationId?: string | null;
}

/** Appends ledger rows (one INSERT each, in order, timestamps strictly increasing within the transaction). */
export async function insertLedgerRows(tx: Tx, rows: LedgerRow[]): Promise<void> {
  for (const row of rows) {
    await tx.$executeRaw`
      INSERT INTO credit_transactions (id, user_id, amount, balance_after, type, operation, metadata, bonus_purchase_id, operation_id, created_at)
      VALUES (gen_random_uuid()::text, ${row.userId}::text, ${row.amount}::int, ${row.balanceAfter}::int, ${row.type}::text,
              ${row.operation}::text, ${row.metadata ? JSON.stringify(row.metadata) : null}::jsonb,
              ${row.bonusPurchaseId ?? null}::text, ${row.operationId ?? null}::text, clock_timestamp())`;
  }
}

/** Inserts a credit operation unless its idempotency key exists; returns its id, or null when it existed. */
export async function insertOperationOnce(
  tx: Tx,
  op: { id?: string; userId: string; idempotencyKey: string; kind: string; amount: number; status: string; details?: unknown },
): Promise<string | null> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO credit_operations (id, user_id, idempotency_key, kind, amount, status, details, created_at, updated_at)
    VALUES (${op.id ?? crypto.randomUUID()}::text, ${op.userId}::text, ${op.idempotencyKey}::text, ${op.kind}::text,
            ${op.amount}::int, ${op.status}::text, ${op.details === undefined ? null : JSON.stringify(op.details)}::jsonb, now(), now())
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING id`;
  return rows[0]?.id ?? null;
}
