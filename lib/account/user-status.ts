import { LIVE_STATUSES } from "@/lib/billing/subscriptions/current-subscription";
import { dbRunner } from "@/lib/db/client";
import { AppError } from "@/lib/errors";

/**
 * The user status of GET /api/user/status. Every value of `status`:
 *   free              no live subscription (never subscribed, or expired back to free)
 *   trialing          subscription on trial (isTrial true)
 *   active_subscriber subscription active and paid
 *   cancelled         cancelled by the user, still active until the period ends
 *   past_due          a renewal payment failed; the provider is retrying (needsAction true)
 *   unpaid            retries exhausted; access continues until the provider expires it (needsAction true)
 *   paused            payment collection paused
 * needsAction: the latest payment failed and has not been recovered (past_due, unpaid, or a failed
 * payment recorded on the subscription). isLocked: the account is locked (identity provider's
 * banned/locked flags, or an operator lock); a locked user cannot sign in.
 */
export interface UserStatus {
  status: "free" | "trialing" | "active_subscriber" | "cancelled" | "past_due" | "unpaid" | "paused";
  tier: string;
  billingPeriod: string;
  isTrial: boolean;
  needsAction: boolean;
  isLocked: boolean;
}

/**
 * One statement on the raw driver (prepared once per connection): the user's row and their current
 * subscription by its one rule, read by the `user_status` database function
 * (prisma/functions/user_status.sql). Dashboards and clients poll this route; two Prisma reads cost it
 * a second round trip and Prisma's per-query work.
 */
/** The status read (exported for bench/pglite-statements.ts). */
export const STATUS_READ = "SELECT * FROM user_status($1, $2::timestamptz, $3::text[])";

interface StatusRow {
  billing_period: string;
  locked: boolean;
  status: string | null;
  tier: string | null;
  plan_period: string | null;
  payment_failed: boolean | null;
}

export async function getUserStatus(userId: string): Promise<UserStatus> {
  const [row] = await (
    await dbRunner()
  ).queryPrepared<StatusRow>("user_status_v1", STATUS_READ, [userId, new Date().toISOString(), [...LIVE_STATUSES]]);
  if (!row) throw new AppError("unauthorized", "Session refers to a user that no longer exists; sign in again");
  const isLocked = row.locked;
  if (row.status === null) {
    return { status: "free", tier: "free", billingPeriod: row.billing_period, isTrial: false, needsAction: false, isLocked };
  }
  const status: UserStatus["status"] =
    row.status === "on_trial" ? "trialing" : row.status === "active" ? "active_subscriber" : (row.status as UserStatus["status"]);
  return {
    status,
    tier: row.tier ?? "free",
    billingPeriod: row.plan_period ?? row.billing_period,
    isTrial: row.status === "on_trial",
    needsAction: row.status === "past_due" || row.status === "unpaid" || row.payment_failed === true,
    isLocked,
  };
}
