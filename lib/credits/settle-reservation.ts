import { queryPrepared } from "./ledger";
import { withSpan } from "@/lib/tracing";
import type { Reservation } from "./types";

/** Settles the charge's operation row; nothing else to write when there is no metadata. */
const SETTLE = `
  UPDATE credit_operations
  SET status = 'settled', updated_at = now()
  WHERE id = $1::text AND user_id = $2::text AND kind = 'charge' AND status = 'reserved'`;

/**
 * Settles the operation row and merges the metadata into it and its ledger rows, in one statement
 * (atomic without a transaction: one round trip on the AI routes' hot path). A plain one-statement
 * charge has no operation row: its usage ledger row (id = reservation id) is the whole record.
 */
const SETTLE_WITH_METADATA = `
  WITH op AS (
    UPDATE credit_operations
    SET status = 'settled', updated_at = now(),
        details = jsonb_set(COALESCE(details, '{}'::jsonb), '{metadata}', COALESCE(details->'metadata', '{}'::jsonb) || $3::jsonb)
    WHERE id = $1::text AND user_id = $2::text AND kind = 'charge' AND status = 'reserved'
    RETURNING id)
  UPDATE credit_transactions SET metadata = COALESCE(metadata, '{}'::jsonb) || $3::jsonb
  WHERE user_id = $2::text AND (
    (operation_id = $1::text AND EXISTS (SELECT 1 FROM op)) OR
    (id = $1::text AND type = 'usage' AND operation_id IS NULL AND NOT EXISTS (SELECT 1 FROM op)))`;

/** settleReservation, in a "credits.settle" span (lib/tracing). */
export function settleReservation(reservation: Reservation, metadata?: Record<string, unknown>): Promise<void> {
  return withSpan("credits.settle", { "credits.amount": reservation.amount }, () => settleReservationUntraced(reservation, metadata));
}

/**
 * Marks a reservation as settled (the work it paid for succeeded) and merges `metadata` (e.g. the
 * model actually used, token counts) into its ledger rows (and operation row, when it has one). A
 * settled reservation can still be refunded; settling twice changes nothing more.
 */
async function settleReservationUntraced(reservation: Reservation, metadata?: Record<string, unknown>): Promise<void> {
  if (!reservation.charged || !reservation.id) return;
  if (!metadata || Object.keys(metadata).length === 0) {
    await queryPrepared("credits_settle_v1", SETTLE, [reservation.id, reservation.userId]);
    return;
  }
  await queryPrepared("credits_settle_metadata_v1", SETTLE_WITH_METADATA, [reservation.id, reservation.userId, JSON.stringify(metadata)]);
}
