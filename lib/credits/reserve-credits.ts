import { randomUUID } from "node:crypto";
import { withSpan } from "@/lib/tracing";
import { flags } from "@/lib/config/flags";
import type { ChargeSlot } from "@/lib/db/ai-slots";
import { INSTANCE_ID } from "@/lib/db/instance";
import { AppError } from "@/lib/errors";
import { metrics } from "@/lib/metrics";
import { rolloverFreeAllocationIfDue } from "./apply-monthly-allocation";
import { chargeRefused } from "./charge-observers";
import { bonusSpendable, inDebt, insufficientCredits, lastRefund, monthStart, queryPrepared } from "./ledger";
import { runReserveStatement, type ReserveArgs, type ReserveRow } from "./reserve-statement";
import { keepUnansweredReservation, mayHaveLanded } from "./unanswered-reservations";
import { UNLIMITED_CREDITS, type CreditAllowance, type Reservation } from "./types";

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
  /**
   * The API key the call is made with: the charge is recorded on it, and a key with a budget is checked
   * and counted in the same statement (never past its budget, in-flight reservations included).
   */
  apiKey?: { id: string; budgeted: boolean; alertThresholds?: number[] };
  /**
   * A charge to an organisation's wallet (`userId` is the organisation's account): the member making
   * it. Their membership and their daily and monthly caps are checked and counted in the same
   * statement (never past a cap, in-flight reservations included).
   */
  memberId?: string;
  /**
   * The request's AI slot, when it is still to be taken across instances (lib/ratelimit/ai-slot): taken
   * with this reservation (in its statement, or alone just before it), so the cap is checked before
   * anything is charged. Absent or already held: nothing to take.
   */
  slot?: ChargeSlot | null;
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as {
    code?: string;
    meta?: { code?: string; driverAdapterError?: { cause?: { originalCode?: string; kind?: string } } };
    message?: string;
  };
  if (e?.code === "P2002" || e?.code === "23505") return true;
  const cause = e?.meta?.driverAdapterError?.cause;
  if (cause?.originalCode === "23505" || cause?.kind === "UniqueConstraintViolation") return true;
  return typeof e?.message === "string" && /23505|unique constraint/i.test(e.message);
}

/** reserveCredits, in a "credits.reserve" span (lib/tracing). */
export function reserveCredits(input: ReserveInput): Promise<Reservation> {
  return withSpan("credits.reserve", { "credits.operation": input.operation, "credits.amount": input.amount }, () =>
    reserveCreditsUntraced(input),
  );
}

/**
 * Charges credits atomically BEFORE the work is done (an AI provider call): insufficient credits
 * throw `insufficient_credits` (→ 402) and nothing is written. Consumption order: subscription
 * credits first, then bonus purchases, oldest expiry first, only when the user's auto-use is on or the
 * per-user toggle is off system-wide. In classic_saas mode nothing is charged or written. A retried
 * call with the same idempotency key returns the first reservation and charges nothing.
 *
 * The whole reservation is one statement: the `reserve_credits` database function
 * (prisma/functions/reserve_credits.sql) takes the balance row lock, draws the buckets in the draw
 * order (draw_credits.sql) and writes the charge's row and its ledger rows; concurrent reservations of
 * this process share statements (reserve-statement.ts). On the raw driver: Prisma's per-query overhead
 * would double it. Every money rule's home is listed in docs/ARCHITECTURE.md "Money rules".
 */
async function reserveCreditsUntraced(input: ReserveInput): Promise<Reservation> {
  const { userId, amount } = input;
  const f = flags();
  const slot = input.slot && !input.slot.held ? input.slot : null;
  if (!f.creditBased) {
    await slot?.holdAlone();
    return { id: "", userId, amount: 0, charged: false, remaining: UNLIMITED_CREDITS };
  }
  if (!Number.isInteger(amount) || amount <= 0)
    throw new AppError("bad_request", `Credit amount must be a positive integer, got ${amount}`);
  const key = input.idempotencyKey ? `charge:${input.idempotencyKey}` : null;
  const id = randomUUID();
  const metadata =
    input.apiKey || input.memberId
      ? {
          ...input.metadata,
          ...(input.apiKey ? { apiKeyId: input.apiKey.id } : {}),
          ...(input.memberId ? { memberId: input.memberId } : {}),
        }
      : input.metadata;
  const args: ReserveArgs = {
    userId,
    amount,
    monthStart: monthStart().toISOString(),
    id,
    operation: input.operation,
    metadata: metadata ? JSON.stringify(metadata) : null,
    key,
    bonusAlways: !f.creditsUserToggle,
  };
  const budgetedKey = input.apiKey?.budgeted ? input.apiKey.id : null;
  // The grouped statement takes the slot with the charge; the key's and the member's take it first, alone.
  if (slot && (input.memberId || budgetedKey)) await slot.holdAlone();
  else if (slot) args.slot = slot.terms;
  for (let attempt = 0; ; attempt++) {
    let row: ReserveRow;
    try {
      row = input.memberId
        ? await reserveForMember(input.memberId, input.apiKey?.id ?? null, args)
        : budgetedKey
          ? await reserveForKey(budgetedKey, args)
          : await runReserveStatement(args);
    } catch (error) {
      // A concurrent call with the same key won the unique index: the next call finds its reservation.
      if (key && isUniqueViolation(error) && attempt === 0) continue;
      if (mayHaveLanded(error)) {
        // The connection failed mid-statement: it may have been committed. The caller is refused (503),
        // so the charge is refunded once the database answers, and the slot the statement may have
        // taken counts as held, so the call's release gives it back rather than its lease's end.
        if (slot && args.slot) slot.held = true;
        keepUnansweredReservation({ id, userId, amount, operation: input.operation });
      }
      throw error;
    }
    const usableBonus = bonusSpendable(Boolean(row.auto_use), f.creditsUserToggle) ? Number(row.bonus_held ?? 0) : 0;
    const remaining = Number(row.subscription_credits ?? 0) + usableBonus;
    const allowance: CreditAllowance = {
      tier: row.tier ?? "free",
      monthlyAllocation: Number(row.monthly_allocation ?? 0),
      resetAt: row.reset_at ? new Date(row.reset_at) : null,
      usableBonusCredits: usableBonus,
    };
    if (slot && args.slot) slot.held = row.outcome === "charged" || row.outcome === "existing";
    switch (row.outcome) {
      case "no_slot":
        throw (slot as ChargeSlot).refusal();
      case "charged": {
        metrics().creditsCharged.inc({ operation: input.operation }, amount);
        const k = row as Partial<KeyReserveRow>;
        const key =
          input.apiKey && k.key_budget !== null && k.key_budget !== undefined
            ? {
                id: input.apiKey.id,
                spent: Number(k.key_spent),
                budget: Number(k.key_budget),
                period: k.key_period ?? null,
                windowStart: k.key_window_start ? new Date(k.key_window_start) : null,
                alertThresholds: input.apiKey.alertThresholds,
              }
            : undefined;
        return {
          id,
          userId,
          amount,
          charged: true,
          remaining,
          operation: input.operation,
          allowance,
          ...(key ? { key } : {}),
          ...(input.memberId || input.apiKey ? { teamCharge: true } : {}),
          ...(input.memberId ? { memberId: input.memberId } : {}),
        };
      }
      case "existing":
        return {
          id: row.reservation_id as string,
          userId,
          amount: Number(row.amount),
          charged: true,
          remaining,
          operation: input.operation,
          allowance,
        };
      case "conflict":
        metrics().reservationFailures.inc({ reason: "conflict" });
        throw new AppError("conflict", "Idempotency key already used for another operation");
      case "insufficient":
        metrics().reservationFailures.inc({ reason: "insufficient" });
        chargeRefused(userId, remaining);
        throw insufficientCredits(amount, remaining);
      case "in_debt":
        metrics().reservationFailures.inc({ reason: "in_debt" });
        throw inDebt(Number(row.amount), await lastRefund(userId));
      case "rollover_due":
        if (attempt > 1) throw new AppError("internal", "The free monthly allocation could not be applied");
        await rolloverFreeAllocationIfDue(userId);
        continue;
      case "no_balance":
        if (attempt > 1 || !(await createEmptyBalance(userId))) throw new AppError("not_found", "User not found");
        continue;
      case "over_budget": {
        const k = row as KeyReserveRow;
        metrics().reservationFailures.inc({ reason: "key_budget" });
        const resets = k.key_window_start && k.key_budget !== null ? budgetReset(k) : null;
        throw new AppError(
          "quota_exhausted",
          `This API key's budget is used up: ${Number(k.key_spent)} of ${Number(k.key_budget)} credits spent, and this call may cost up to ${amount}${resets ? ` (the budget resets at ${resets})` : ""}`,
          { details: { cost: amount, spent: Number(k.key_spent), budget: Number(k.key_budget) }, reason: "budget_exceeded" },
        );
      }
      case "no_key":
        // Revoked since this instance cached it (elsewhere, or with its maker's removal): the statement decides.
        throw new AppError("unauthorized", "The API key is not valid: it was revoked");
      case "no_member":
        throw new AppError("forbidden", "You are not a member of this organisation (any more): its wallet cannot be charged", {
          reason: "not_a_member",
        });
      case "over_org_budget": {
        // The organisation's own budget (organisation_budget_check): in the cap columns, or the key's with a key.
        const c = row as MemberReserveRow & KeyReserveRow;
        const period = c.cap_period ?? c.key_period;
        const spent = Number(c.cap_spent ?? c.key_spent);
        const budget = Number(c.cap_credits ?? c.key_budget);
        metrics().reservationFailures.inc({ reason: "organisation_budget" });
        throw new AppError(
          "quota_exhausted",
          `This organisation's ${period === "day" ? "daily" : "monthly"} budget is used up: ${spent} of ${budget} credits spent ${period === "day" ? "today" : "this month"}, and this call may cost up to ${amount}; its owner or an admin can raise it`,
          { details: { cost: amount, spent, budget, period: period ?? "" }, reason: "organisation_budget_exceeded" },
        );
      }
      case "over_cap": {
        const c = row as MemberReserveRow;
        metrics().reservationFailures.inc({ reason: "member_cap" });
        const period = c.cap_period === "day" ? "today" : "this month";
        throw new AppError(
          "quota_exhausted",
          `Your spending cap in this organisation is used up: ${Number(c.cap_spent)} of ${Number(c.cap_credits)} credits spent ${period}, and this call may cost up to ${amount}; an admin of the organisation can raise it`,
          {
            details: { cost: amount, spent: Number(c.cap_spent), cap: Number(c.cap_credits), period: c.cap_period ?? "" },
            reason: "member_cap_exceeded",
          },
        );
      }
    }
  }
}

interface KeyReserveRow extends ReserveRow {
  key_spent: number | null;
  key_budget: number | null;
  key_period: string | null;
  key_window_start: Date | string | null;
}

/** One reservation through `reserve_credits_for_key` (prisma/functions/reserve_credits_for_key.sql): not grouped. */
async function reserveForKey(keyId: string, a: ReserveArgs): Promise<KeyReserveRow> {
  const rows = await queryPrepared<KeyReserveRow>(
    "credits_reserve_for_key_v2",
    `SELECT outcome, reservation_id, amount, subscription_credits, bonus_held, auto_use, monthly_allocation, reset_at, tier, key_spent, key_budget, key_period, key_window_start
       FROM reserve_credits_for_key($1::text, $2::text, $3::int, $4::timestamptz, $5::text, $6::text, $7::jsonb, $8::boolean, $9::text)`,
    [keyId, a.userId, a.amount, a.monthStart, a.id, a.operation, a.metadata, a.bonusAlways, INSTANCE_ID],
  );
  return rows[0];
}

interface MemberReserveRow extends KeyReserveRow {
  cap_period: "day" | "month" | null;
  cap_spent: number | null;
  cap_credits: number | null;
}

/** One charge to an organisation through `reserve_credits_for_member` (prisma/functions/reserve_credits_for_member.sql): not grouped. */
async function reserveForMember(memberId: string, keyId: string | null, a: ReserveArgs): Promise<MemberReserveRow> {
  const rows = await queryPrepared<MemberReserveRow>(
    "credits_reserve_for_member_v1",
    `SELECT outcome, reservation_id, amount, subscription_credits, bonus_held, auto_use, monthly_allocation, reset_at, tier, key_spent, key_budget, key_period, key_window_start,
            cap_period, cap_spent, cap_credits
       FROM reserve_credits_for_member($1::text, $2::text, $3::text, $4::int, $5::timestamptz, $6::text, $7::text, $8::jsonb, $9::text, $10::boolean, $11::text)`,
    [memberId, keyId, a.userId, a.amount, a.monthStart, a.id, a.operation, a.metadata, a.key, a.bonusAlways, INSTANCE_ID],
  );
  return rows[0];
}

/** When a key's budget window resets: the next UTC day or month (a total budget never does). */
function budgetReset(k: KeyReserveRow): string | null {
  const start = new Date(k.key_window_start as string | Date);
  if (k.key_period === "day") return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate() + 1)).toISOString();
  if (k.key_period === "month") return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1)).toISOString();
  return null;
}

/** A balance row for a user who has none (users made before credits existed); false when no such user. */
async function createEmptyBalance(userId: string): Promise<boolean> {
  await queryPrepared(
    "credits_balance_create_v1",
    `INSERT INTO credit_balances (user_id, subscription_credits, monthly_allocation, updated_at)
     SELECT id, 0, 0, now() FROM users WHERE id = $1::text ON CONFLICT (user_id) DO NOTHING`,
    [userId],
  );
  const rows = await queryPrepared<{ one: number }>("credits_user_exists_v1", "SELECT 1 AS one FROM users WHERE id = $1::text", [userId]);
  return rows.length > 0;
}
