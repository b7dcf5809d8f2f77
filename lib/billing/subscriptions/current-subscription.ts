import type { Prisma, Subscription } from "@/lib/generated/prisma/client";
import { db } from "@/lib/db/client";

/** Subscription statuses that still give the user their paid tier (cancelled: until ends_at). */
export const LIVE_STATUSES = ["active", "on_trial", "past_due", "unpaid", "paused", "cancelled"] as const;

type Reader = Pick<Prisma.TransactionClient, "subscription" | "$queryRaw">;

/**
 * The user's current subscription: the newest live one that has not ended, else null. The rule is the
 * `current_subscription` database function's (prisma/functions/current_subscription.sql), so the
 * status read can take it in its one statement (lib/account/user-status.ts).
 */
export async function currentSubscription(userId: string, reader?: Reader, now = new Date()): Promise<Subscription | null> {
  const client = reader ?? (await db());
  const [current] = await client.$queryRaw<{ id: string }[]>`
    SELECT id FROM current_subscription(${userId}, ${now}::timestamptz, ${[...LIVE_STATUSES]}::text[])`;
  return current ? client.subscription.findUnique({ where: { id: current.id } }) : null;
}

/**
 * The subscription a new plan checkout would duplicate (one running subscription per user: a second
 * would bill twice): the current one unless it is cancelled, which may be bought anew or resumed.
 */
export async function runningSubscription(userId: string): Promise<Subscription | null> {
  const current = await currentSubscription(userId);
  return current && current.status !== "cancelled" ? current : null;
}
