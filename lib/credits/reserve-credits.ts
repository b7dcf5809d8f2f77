import { randomUUID } from "node:crypto";
import { withSpan } from "@/lib/tracing";
import { flags } from "@/lib/config/flags";
import { db } from "@/lib/db/client";
import { AppError, isAppError } from "@/lib/errors";
import { metrics } from "@/lib/metrics";
import { rolloverFreeAllocationIfDue } from "./apply-monthly-allocation";
import { bonusSpendable, insertLedgerRows, insufficientCredits, lockBalance, monthStart, queryPrepared } from "./ledger";
import { UNLIMITED_CREDITS, type ChargeDetails, type Draw, type Reservation } from "./types";

export interface ReserveInput {
  userId: string;
  /** Credits to charge: a positive integer. */
  amount: number;
  /** Name of the operation (ledger `operation`), e.g. "chat". */
  operation: string;
  /** A retried call with the same key returns the first reservation and charges nothing. */
  idempotencyKey?: string;
  /** Stored on the ledger row (e.g. the model). */
  metadata?: Record<string, unknown>;
}

interface FastRow {
  subscription_credits: number;
  bonus_held: number;
  bonus_credits_auto_use: boolean;
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; meta?: { code?: string; driverAdapterError?: { cause?: { originalCode?: string; kind?: string } } }; message?: string };
  if (e?.code === "P2002" || e?.code === "23505") return true;
  const cause = e?.meta?.driverAdapterError?.cause;
  if (cause?.originalCode === "23505" || cause?.kind === "UniqueConstraintViolation") return true;
  return typeof e?.message === "string" && /23505|unique constraint/i.test(e.message);
}

/** reserveCredits, in a "credits.reserve" span (lib/tracing). */
export function reserveCredits(input: ReserveInput): Promise<Reservation> {
  return withSpan("credits.reserve", { "credits.operation": input.operation, "credits.amount": input.amount }, () => reserveCreditsUntraced(input));
}

/**
 * Charges credits atomically BEFORE the work is done (an AI provider call): insufficient credits
 * throw `insufficient_credits` (→ 402) and nothing is written. Consumption order: subscription
 * credits first, then bonus purchases, oldest expiry first, only when the user's auto-use is on or the
 * per-user toggle is off system-wide. In classic_saas mode nothing is charged or written.
 *
 * Hot path: ONE statement (a CTE) when the subscription credits cover the charge — a conditional
 * `UPDATE ... WHERE subscription_credits >= n` (which also takes the row lock) and the ledger row, all
 * or nothing. Otherwise a short transaction under the balance row lock draws from the buckets in order
 * and records the draw in a credit_operations row.
 */
async function reserveCreditsUntraced(input: ReserveInput): Promise<Reservation> {
  const { userId, amount } = input;
  const f = flags();
  if (!f.creditBased) return { id: "", userId, amount: 0, charged: false, remaining: UNLIMITED_CREDITS };
  if (!Number.isInteger(amount) || amount <= 0) throw new AppError("bad_request", `Credit amount must be a positive integer, got ${amount}`);
  const idempotencyKey = input.idempotencyKey ? `charge:${input.idempotencyKey}` : undefined;
  if (idempotencyKey) {
    const existing = await findReservation(userId, idempotencyKey);
    if (existing) return existing;
  }
  try {
    const reservation = (await chargeFromSubscription(input, idempotencyKey, f.creditsUserToggle)) ?? (await chargeAcrossBuckets(input, idempotencyKey));
    if (reservation.charged) metrics().creditsCharged.inc({ operation: input.operation }, amount);
    return { ...reservation, operation: input.operation };
  } catch (error) {
    if (idempotencyKey && isUniqueViolation(error)) {
      const existing = await findReservation(userId, idempotencyKey);
      if (existing) return existing;
    }
    if (isAppError(error) && (error.code === "insufficient_credits" || error.code === "conflict")) {
      metrics().reservationFailures.inc({ reason: error.code === "conflict" ? "conflict" : "insufficient" });
    }
    throw error;
  }
}

/**
 * The one-statement charge: the conditional `UPDATE ... WHERE subscription_credits >= n` takes the
 * balance row lock and writes the ledger row in the same statement, so it is all or nothing. The users
 * row (tier, auto-use) and the bonus sum for `balanceAfter` are joined in the UPDATE, read before the
 * lock.
 * - the free-tier guard: a free user whose last reset is before this month falls through to the
 *   general path, which applies the lazy calendar-month rollover first;
 * - without an idempotency key ($7 null) the usage ledger row is the whole record and its id is the
 *   reservation id (a refund reads the draw back from it);
 * - with a key, a credit_operations row (id = reservation id) carries the unique key and the draw,
 *   and the ledger row points at it; a concurrent duplicate fails the whole statement on the unique
 *   index and the caller returns the first reservation.
 * Runs on the raw driver: this is the hot path, and Prisma's per-query overhead would double its cost.
 */
const FAST_CHARGE = `
  WITH bal AS (
    UPDATE credit_balances b
    SET subscription_credits = b.subscription_credits - $2::int, updated_at = now()
    FROM users u,
      (SELECT COALESCE(SUM(remaining), 0)::int AS held FROM bonus_purchases
        WHERE user_id = $1::text AND remaining > 0 AND expires_at > now()) bonus
    WHERE b.user_id = $1::text AND u.id = b.user_id
      AND b.subscription_credits >= $2::int
      AND (b.reset_at >= $3::timestamptz OR u.tier <> 'free')
    RETURNING b.subscription_credits, u.bonus_credits_auto_use, bonus.held AS bonus_held
  ), op AS (
    INSERT INTO credit_operations (id, user_id, idempotency_key, kind, amount, status, details, created_at, updated_at)
    SELECT $4::text, $1::text, $7::text, 'charge', $2::int, 'reserved', $8::jsonb, now(), now()
    FROM bal WHERE $7::text IS NOT NULL
    RETURNING id
  ), ledger AS (
    INSERT INTO credit_transactions (id, user_id, amount, balance_after, type, operation, metadata, bonus_purchase_id, operation_id, created_at)
    SELECT CASE WHEN $7::text IS NULL THEN $4::text ELSE gen_random_uuid()::text END, $1::text, -$2::int,
      bal.subscription_credits + bal.bonus_held, 'usage', $5::text, $6::jsonb, NULL, (SELECT id FROM op), now()
    FROM bal
    RETURNING id
  )
  SELECT subscription_credits, bonus_credits_auto_use, bonus_held FROM bal`;

async function chargeFromSubscription(input: ReserveInput, idempotencyKey: string | undefined, toggleEnabled: boolean): Promise<Reservation | null> {
  const id = randomUUID();
  const details: ChargeDetails | null = idempotencyKey ? { operation: input.operation, draws: [{ bonusPurchaseId: null, amount: input.amount }] } : null;
  const rows = await queryPrepared<FastRow>("credits_charge_v4", FAST_CHARGE, [
    input.userId,
    input.amount,
    monthStart().toISOString(),
    id,
    input.operation,
    input.metadata ? JSON.stringify(input.metadata) : null,
    idempotencyKey ?? null,
    details ? JSON.stringify(details) : null,
  ]);
  const row = rows[0];
  if (!row) return null;
  const usableBonus = bonusSpendable(Boolean(row.bonus_credits_auto_use), toggleEnabled) ? Number(row.bonus_held) : 0;
  return { id, userId: input.userId, amount: input.amount, charged: true, remaining: Number(row.subscription_credits) + usableBonus };
}

/** The general charge under the balance row lock: subscription first, then bonus purchases by expiry. */
async function chargeAcrossBuckets(input: ReserveInput, idempotencyKey: string | undefined): Promise<Reservation> {
  const { userId, amount } = input;
  // One read first: apply the free rollover if due, and refuse without a transaction when even all
  // spendable buckets cannot cover the charge (a refusal based on a committed state is always valid;
  // only a grant of credits needs the lock).
  let snapshot = await readSnapshot(userId);
  if (snapshot.tier === "free" && (!snapshot.resetAt || snapshot.resetAt < monthStart())) {
    await rolloverFreeAllocationIfDue(userId);
    snapshot = await readSnapshot(userId);
  }
  const availableNow = snapshot.subscriptionCredits + (bonusSpendable(snapshot.autoUse) ? snapshot.bonusHeld : 0);
  if (availableNow < amount) throw insufficientCredits(amount, availableNow);
  const prisma = await db();
  const id = randomUUID();
  return prisma.$transaction(async (tx) => {
    const balance = await lockBalance(tx, userId);
    const spendable = bonusSpendable(balance.bonusCreditsAutoUse);
    const purchases = await tx.$queryRaw<{ id: string; remaining: number }[]>`
      SELECT id, remaining FROM bonus_purchases
      WHERE user_id = ${userId}::text AND remaining > 0 AND expires_at > now()
      ORDER BY expires_at ASC, created_at ASC, id ASC
      FOR UPDATE`;
    const bonusHeld = purchases.reduce((sum, p) => sum + Number(p.remaining), 0);
    const available = balance.subscriptionCredits + (spendable ? bonusHeld : 0);
    if (available < amount) throw insufficientCredits(amount, available);

    const draws: Draw[] = [];
    let left = amount;
    const fromSubscription = Math.min(balance.subscriptionCredits, left);
    if (fromSubscription > 0) {
      draws.push({ bonusPurchaseId: null, amount: fromSubscription });
      left -= fromSubscription;
    }
    for (const p of purchases) {
      if (left === 0) break;
      const take = Math.min(Number(p.remaining), left);
      draws.push({ bonusPurchaseId: p.id, amount: take });
      left -= take;
    }

    for (const draw of draws) {
      const changed = draw.bonusPurchaseId
        ? await tx.$executeRaw`UPDATE bonus_purchases SET remaining = remaining - ${draw.amount}::int
            WHERE id = ${draw.bonusPurchaseId}::text AND remaining >= ${draw.amount}::int`
        : await tx.$executeRaw`UPDATE credit_balances SET subscription_credits = subscription_credits - ${draw.amount}::int, updated_at = now()
            WHERE user_id = ${userId}::text AND subscription_credits >= ${draw.amount}::int`;
      if (changed !== 1) throw new AppError("internal", "Credit bucket changed under its lock");
    }
    const details: ChargeDetails = { operation: input.operation, draws };
    await tx.$executeRaw`
      INSERT INTO credit_operations (id, user_id, idempotency_key, kind, amount, status, details, created_at, updated_at)
      VALUES (${id}::text, ${userId}::text, ${idempotencyKey ?? id}::text, 'charge', ${amount}::int, 'reserved', ${JSON.stringify(details)}::jsonb, now(), now())`;
    let held = balance.subscriptionCredits + bonusHeld;
    await insertLedgerRows(
      tx,
      draws.map((draw) => {
        held -= draw.amount;
        return {
          userId,
          amount: -draw.amount,
          balanceAfter: held,
          type: "usage" as const,
          operation: input.operation,
          metadata: input.metadata ?? null,
          bonusPurchaseId: draw.bonusPurchaseId,
          operationId: id,
        };
      }),
    );
    return { id, userId, amount, charged: true, remaining: available - amount };
  });
}

/** The reservation already made under this idempotency key (for this user), with the current usable balance. */
async function findReservation(userId: string, idempotencyKey: string): Promise<Reservation | null> {
  const prisma = await db();
  const op = await prisma.creditOperation.findUnique({ where: { idempotencyKey } });
  if (!op) return null;
  if (op.userId !== userId || op.kind !== "charge") throw new AppError("conflict", "Idempotency key already used for another operation");
  const snapshot = await readSnapshot(userId);
  const usable = snapshot.subscriptionCredits + (bonusSpendable(snapshot.autoUse) ? snapshot.bonusHeld : 0);
  return { id: op.id, userId, amount: op.amount, charged: true, remaining: usable };
}

const SNAPSHOT = `
  SELECT u.tier, u.bonus_credits_auto_use AS auto_use, b.reset_at, COALESCE(b.subscription_credits, 0) AS sub,
    (SELECT COALESCE(SUM(p.remaining), 0)::int FROM bonus_purchases p
      WHERE p.user_id = u.id AND p.remaining > 0 AND p.expires_at > now()) AS bonus
  FROM users u LEFT JOIN credit_balances b ON b.user_id = u.id
  WHERE u.id = $1::text`;

async function readSnapshot(userId: string) {
  const rows = await queryPrepared<{ tier: string; auto_use: boolean; reset_at: Date | string | null; sub: number; bonus: number }>(
    "credits_snapshot_v1",
    SNAPSHOT,
    [userId],
  );
  const row = rows[0];
  if (!row) throw new AppError("not_found", "User not found");
  return {
    tier: row.tier,
    autoUse: Boolean(row.auto_use),
    resetAt: row.reset_at ? new Date(row.reset_at) : null,
    subscriptionCredits: Number(row.sub),
    bonusHeld: Number(row.bonus),
  };
}
