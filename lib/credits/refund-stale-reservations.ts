import { INSTANCE_ID, LOST_AFTER_MS } from "@/lib/db/instance";
import { log } from "@/lib/log";
import { queryPrepared } from "./ledger";
import { refundReservation } from "./refund-reservation";

/** The least a reservation waits before the sweep may refund it, whatever its process (2 minutes). */
export function staleReservationMs(): number {
  return 2 * 60_000;
}

/**
 * Refunds charges left `reserved` by a server process that is gone: one that stopped, or whose
 * heartbeat is older than LOST_AFTER_MS (lib/db/instance.ts), or a charge that names no process (made
 * before charges recorded theirs). A live process settles each of its charges when the call ends
 * (every call has a deadline; a stream is read to its end whatever its client does), so a charge of
 * a live process is never touched here, however long its stream lasts. A crash between a provider
 * call and its settlement errs toward the user (the operator pays the provider for those calls).
 * Safe on every instance at once and against a settlement racing it: each refund locks the balance
 * row and refunds only a charge still `reserved`. Run at server start, every few minutes by each
 * server, and by the daily cron's housekeeping.
 */
export async function refundStaleReservations(olderThanMs = staleReservationMs()): Promise<{ refunded: number }> {
  const stale = await queryPrepared<{ id: string; user_id: string; amount: number; operation: string | null }>(
    "credits_stale_reservations_v2",
    `SELECT o.id, o.user_id, o.amount, o.details->>'operation' AS operation FROM credit_operations o
      WHERE o.status = 'reserved' AND o.kind = 'charge' AND o.created_at < now() - make_interval(secs => $1::double precision)
        AND o.instance_id IS DISTINCT FROM $2::text
        AND NOT EXISTS (SELECT 1 FROM server_instances i
                         WHERE i.id = o.instance_id AND i.stopped_at IS NULL AND i.heartbeat_at > now() - make_interval(secs => $3::double precision))
      ORDER BY o.created_at LIMIT 1000`,
    [olderThanMs / 1000, INSTANCE_ID, LOST_AFTER_MS / 1000],
  );
  let refunded = 0;
  for (const row of stale) {
    const reservation = {
      id: row.id,
      userId: row.user_id,
      amount: Number(row.amount),
      charged: true,
      remaining: 0,
      operation: row.operation ?? undefined,
    };
    const result = await refundReservation(reservation, { reason: "not_settled" });
    if (result.refunded > 0) refunded++;
  }
  if (refunded > 0) log.warn("unsettled charges refunded (their process stopped before settling them)", { count: refunded });
  return { refunded };
}
