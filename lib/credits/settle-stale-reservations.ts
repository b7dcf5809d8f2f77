import { log } from "@/lib/log";
import { queryPrepared } from "./ledger";

/** How long a reservation may stay `reserved` before the cleanup settles it (the longest AI call is 60 s). */
export const STALE_RESERVATION_MS = 60 * 60 * 1000;

/**
 * Settles charges left `reserved` by a process that stopped between the answer and its settlement
 * (settlements are written after the response): the credits were taken and stay taken; the operation
 * row is marked settled, noting it was the cleanup. Part of the daily cron housekeeping. A charge whose
 * work failed was refunded before its answer, so it is never `reserved` here.
 */
export async function settleStaleReservations(olderThanMs = STALE_RESERVATION_MS): Promise<{ settled: number }> {
  const rows = await queryPrepared<{ id: string }>(
    "credits_settle_stale_v1",
    `UPDATE credit_operations
       SET status = 'settled', updated_at = now(),
           details = jsonb_set(COALESCE(details, '{}'::jsonb), '{settledBy}', '"cleanup"')
     WHERE kind = 'charge' AND status = 'reserved' AND created_at < now() - make_interval(secs => $1::double precision)
     RETURNING id`,
    [olderThanMs / 1000],
  );
  if (rows.length > 0) log.warn("stale reservations settled by the cleanup", { count: rows.length });
  return { settled: rows.length };
}
