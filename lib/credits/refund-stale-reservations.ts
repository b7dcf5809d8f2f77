import { env } from "@/lib/config/env";
import { log } from "@/lib/log";
import { queryPrepared } from "./ledger";
import { refundReservation } from "./refund-reservation";

/** The least a reservation waits before the sweep may refund it (10 minutes, or 3 provider timeouts). */
export function staleReservationMs(): number {
  return Math.max(10 * 60_000, 3 * env().AI_TIMEOUT_MS);
}

/**
 * Refunds charges left `reserved` by a process that stopped before settling them. A charge is settled
 * in the same step that sends its answer (a stream: before its closing event), so `reserved` past the
 * longest call means the answer never went out in full: the user gets the credits back, and a crash
 * errs toward the user (the operator pays the provider for the calls in flight). Safe to run on every
 * instance at once: each refund locks the balance row and refunds only a charge still `reserved`.
 * Run at server start, every few minutes by each server, and by the daily cron's housekeeping.
 */
export async function refundStaleReservations(olderThanMs = staleReservationMs()): Promise<{ refunded: number }> {
  const stale = await queryPrepared<{ id: string; user_id: string; amount: number; operation: string | null }>(
    "credits_stale_reservations_v1",
    `SELECT id, user_id, amount, details->>'operation' AS operation FROM credit_operations
      WHERE status = 'reserved' AND kind = 'charge' AND created_at < now() - make_interval(secs => $1::double precision)
      ORDER BY created_at LIMIT 1000`,
    [olderThanMs / 1000],
  );
  let refunded = 0;
  for (const row of stale) {
    const reservation = { id: row.id, userId: row.user_id, amount: Number(row.amount), charged: true, remaining: 0, operation: row.operation ?? undefined };
    const result = await refundReservation(reservation, { reason: "not_settled" });
    if (result.refunded > 0) refunded++;
  }
  if (refunded > 0) log.warn("unsettled charges refunded (their process stopped before answering)", { count: refunded });
  return { refunded };
}
