import { db } from "@/lib/db/client";
import type { Reservation } from "./types";

/**
 * Marks a reservation as settled (the work it paid for succeeded) and merges `metadata` (e.g. the
 * model actually used, token counts) into its ledger rows (and operation row, when it has one). A
 * settled reservation can still be refunded; settling twice changes nothing more.
 */
export async function settleReservation(reservation: Reservation, metadata?: Record<string, unknown>): Promise<void> {
  if (!reservation.charged || !reservation.id) return;
  const prisma = await db();
  const patch = JSON.stringify(metadata ?? {});
  await prisma.$transaction(async (tx) => {
    const settled = await tx.$executeRaw`
      UPDATE credit_operations
      SET status = 'settled', updated_at = now(),
          details = jsonb_set(COALESCE(details, '{}'::jsonb), '{metadata}', COALESCE(details->'metadata', '{}'::jsonb) || ${patch}::jsonb)
      WHERE id = ${reservation.id}::text AND user_id = ${reservation.userId}::text AND kind = 'charge' AND status = 'reserved'`;
    if (!metadata || Object.keys(metadata).length === 0) return;
    if (settled === 1) {
      await tx.$executeRaw`
        UPDATE credit_transactions SET metadata = COALESCE(metadata, '{}'::jsonb) || ${patch}::jsonb
        WHERE operation_id = ${reservation.id}::text AND user_id = ${reservation.userId}::text`;
    } else {
      // A plain one-statement charge: its usage ledger row is the whole record.
      await tx.$executeRaw`
        UPDATE credit_transactions SET metadata = COALESCE(metadata, '{}'::jsonb) || ${patch}::jsonb
        WHERE id = ${reservation.id}::text AND user_id = ${reservation.userId}::text AND type = 'usage' AND operation_id IS NULL`;
    }
  });
}
