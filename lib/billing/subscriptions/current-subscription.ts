import type { Prisma, Subscription } from "@/lib/generated/prisma/client";
import { db } from "@/lib/db/client";

/** Subscription statuses that still give the user their paid tier (cancelled: until ends_at). */
export const LIVE_STATUSES = ["active", "on_trial", "past_due", "unpaid", "paused", "cancelled"] as const;

type Reader = Pick<Prisma.TransactionClient, "subscription">;

/** The user's current subscription: the newest one that has not expired (or ended), else null. */
export async function currentSubscription(userId: string, reader?: Reader, now = new Date()): Promise<Subscription | null> {
  const client = reader ?? (await db());
  const rows = await client.subscription.findMany({
    where: { userId, status: { in: [...LIVE_STATUSES] } },
    orderBy: { createdAt: "desc" },
    take: 5,
  });
  return rows.find((s) => !(s.status === "cancelled" && s.endsAt && s.endsAt <= now)) ?? null;
}

/**
 * The subscription a new plan checkout would duplicate (one running subscription per user: a second
 * would bill twice): the current one unless it is cancelled, which may be bought anew or resumed.
 */
export async function runningSubscription(userId: string): Promise<Subscription | null> {
  const current = await currentSubscription(userId);
  return current && current.status !== "cancelled" ? current : null;
}
