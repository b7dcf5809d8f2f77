import type { Prisma, Subscription } from "@/lib/generated/prisma/client";

/** Where a subscription change came from. */
export type SnapshotSource = "webhook" | "provider_answer" | "reconciliation" | "trial_expiry";

/**
 * Appends a change to a subscription's history (shown to operators), in the transaction that made it:
 * the event, where it came from, and the status before and after.
 */
export async function recordSubscriptionEvent(
  tx: Prisma.TransactionClient,
  input: { subscription: Subscription; event: string; source: SnapshotSource; statusFrom: string | null; occurredAt: Date },
): Promise<void> {
  await tx.subscriptionEvent.create({
    data: {
      subscriptionId: input.subscription.id,
      event: input.event,
      source: input.source,
      statusFrom: input.statusFrom,
      statusTo: input.subscription.status,
      tier: input.subscription.tier,
      variantId: input.subscription.variantId,
      occurredAt: input.occurredAt,
    },
  });
}
