import { withSpan } from "@/lib/tracing";
import { AppError } from "@/lib/errors";
import { metrics } from "@/lib/metrics";
import { bonusSpendable, queryPrepared } from "./ledger";
import { UNLIMITED_CREDITS, type Reservation } from "./types";

/** refundReservation, in a "credits.refund" span (lib/tracing). */
export function refundReservation(
  reservation: Reservation,
  options: { reason?: string } = {},
): Promise<{ refunded: number; remaining: number }> {
  return withSpan("credits.refund", { "credits.amount": reservation.amount }, () => refundReservationUntraced(reservation, options));
}

interface RefundRow {
  outcome: "refunded" | "not_reserved" | "not_found";
  refunded: number;
  subscription_credits: number | null;
  bonus_held: number | null;
  auto_use: boolean | null;
}

/**
 * Returns a reserved charge's credits to the buckets they came from (the work it paid for failed):
 * one statement, the `refund_charge` database function (prisma/functions/refund_charge.sql: the
 * balance row's lock, then the charge's; the give-back order of give_back_credits, the last drawn
 * first; `refund` ledger rows on an operation keyed `refund:<reservation id>`). Only a charge still
 * `reserved` is refunded: one settled (its answer went out) or refunded before is left as it is, so a
 * refund racing a settlement never returns credits twice. Credits returned to a bonus purchase keep
 * its expiry (the expiry job expires them if it has passed).
 */
async function refundReservationUntraced(
  reservation: Reservation,
  options: { reason?: string } = {},
): Promise<{ refunded: number; remaining: number }> {
  if (!reservation.charged || !reservation.id)
    return { refunded: 0, remaining: reservation.charged ? reservation.remaining : UNLIMITED_CREDITS };
  const [row] = await queryPrepared<RefundRow>(
    "credits_refund_charge_v1",
    "SELECT outcome, refunded, subscription_credits, bonus_held, auto_use FROM refund_charge($1::text, $2::text, $3::text)",
    [reservation.id, reservation.userId, options.reason ?? null],
  );
  if (!row || row.outcome === "not_found") throw new AppError("not_found", "Reservation not found");
  const refunded = Number(row.refunded);
  const remaining = Number(row.subscription_credits ?? 0) + (bonusSpendable(Boolean(row.auto_use)) ? Number(row.bonus_held ?? 0) : 0);
  if (refunded > 0) metrics().creditsRefunded.inc({ operation: reservation.operation ?? "unknown" }, refunded);
  return { refunded, remaining };
}
