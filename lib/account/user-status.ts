import { currentSubscription } from "@/lib/billing/subscriptions/current-subscription";
import { db } from "@/lib/db/client";
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

export async function getUserStatus(userId: string): Promise<UserStatus> {
  const prisma = await db();
  const user = await prisma.user.findUnique({ where: { id: userId } });
  if (!user) throw new AppError("unauthorized", "Session refers to a user that no longer exists; sign in again");
  const subscription = await currentSubscription(userId, prisma);
  const isLocked = user.lockedAt !== null;
  if (!subscription) {
    return { status: "free", tier: "free", billingPeriod: user.billingPeriod, isTrial: false, needsAction: false, isLocked };
  }
  const status: UserStatus["status"] =
    subscription.status === "on_trial"
      ? "trialing"
      : subscription.status === "active"
        ? "active_subscriber"
        : (subscription.status as UserStatus["status"]);
  return {
    status,
    tier: subscription.tier,
    billingPeriod: subscription.billingPeriod,
    isTrial: subscription.status === "on_trial",
    needsAction: subscription.status === "past_due" || subscription.status === "unpaid" || subscription.paymentFailedAt !== null,
    isLocked,
  };
}
