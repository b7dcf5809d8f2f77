import { deliverSoon } from "@/lib/outbound/deliver-outbound";
import { emitEvent } from "@/lib/outbound/emit-event";
import { findVariant } from "@/lib/config/pricing";
import { applyMonthlyAllocation } from "@/lib/credits";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { Prisma, Subscription } from "@/lib/generated/prisma/client";
import { currentSubscription } from "./current-subscription";
import type { ProviderSubscription } from "../payment-provider/provider-types";
import { recordSubscriptionEvent, type SnapshotSource } from "./record-subscription-event";
import { EMPTY_STATE, givesAccess, isSubscriptionStatus, nextSubscriptionState, type SnapshotEvent } from "./subscription-state";
import { tierRank } from "./tier-rank";

export interface ApplySnapshotInput {
  userId: string;
  subscription: ProviderSubscription;
  event: SnapshotEvent;
  provider: string;
  source: SnapshotSource;
}

export interface ApplySnapshotResult {
  applied: boolean;
  created: boolean;
  subscription: Subscription;
}

function date(value: unknown): Date | null {
  if (typeof value !== "string" || value === "") return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

const str = (value: unknown) => (value === null || value === undefined || value === "" ? null : String(value));

/**
 * Applies a provider subscription snapshot (webhook, provider API answer, reconciliation) to our
 * record in one transaction: created when missing (so subscription_updated before
 * subscription_created still yields the right record), skipped when older than what we hold (by the
 * provider's updated_at), then the user's tier follows their current subscription and the monthly
 * allocation follows the subscription's start, upgrades and expiry (each keyed, so once).
 */
export async function applySubscriptionSnapshot(input: ApplySnapshotInput): Promise<ApplySnapshotResult> {
  const { id } = input.subscription;
  const a = input.subscription.attributes;
  const at = date(a.updated_at);
  if (!at) throw new AppError("validation_failed", `Subscription ${id}: updated_at is missing or not a timestamp`);
  const snapshotStatus = a.status;
  if (!isSubscriptionStatus(snapshotStatus))
    throw new AppError("validation_failed", `Subscription ${id}: unknown status "${String(a.status)}"`);
  const match = findVariant(a.variant_id);
  if (!match || match.kind !== "plan")
    throw new AppError("validation_failed", `Subscription ${id}: variant ${String(a.variant_id)} is not a plan of the pricing catalog`);

  const prisma = await db();
  const result = await prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT 1 FROM users WHERE id = ${input.userId}::text FOR UPDATE`;
    const locked = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM subscriptions WHERE provider_subscription_id = ${id}::text FOR UPDATE`;
    const previous = locked.length ? await tx.subscription.findUnique({ where: { providerSubscriptionId: id } }) : null;

    const { state, applied } = nextSubscriptionState(
      previous ? { ...EMPTY_STATE, status: previous.status as never, updatedAt: previous.providerUpdatedAt } : EMPTY_STATE,
      { name: input.event, at, status: snapshotStatus },
    );
    if (!applied && previous) return { applied: false, created: false, subscription: previous };

    const status = state.status === "none" ? snapshotStatus : state.status;
    const fields = {
      status,
      tier: match.tier.key,
      billingPeriod: match.billingPeriod,
      variantId: String(a.variant_id),
      productId: str(a.product_id),
      providerCustomerId: str(a.customer_id),
      currentPeriodEnd: date(a.renews_at),
      trialEndsAt: date(a.trial_ends_at),
      endsAt: date(a.ends_at),
      cancelledAt: status === "cancelled" ? (previous?.cancelledAt ?? at) : null,
      pausedAt: status === "paused" ? (previous?.pausedAt ?? at) : null,
      customerPortalUrl: str(a.urls?.customer_portal),
      providerUpdatedAt: at,
    };
    const row = previous
      ? await tx.subscription.update({ where: { id: previous.id }, data: fields })
      : await tx.subscription.create({
          data: {
            ...fields,
            userId: input.userId,
            provider: input.provider,
            providerSubscriptionId: id,
            createdAt: date(a.created_at) ?? undefined,
          },
        });

    await recordSubscriptionEvent(tx, {
      subscription: row,
      event: input.event,
      source: input.source,
      statusFrom: previous?.status ?? null,
      occurredAt: at,
    });
    await followSubscription(tx, row, previous);
    // The account's webhook endpoints hear of it (the outbox row commits with the change).
    await emitEvent(tx, {
      accountId: input.userId,
      type: !previous
        ? "subscription.created"
        : row.status === "expired" && previous.status !== "expired"
          ? "subscription.expired"
          : row.status === "cancelled" && previous.status !== "cancelled"
            ? "subscription.cancelled"
            : "subscription.updated",
      data: {
        subscriptionId: row.providerSubscriptionId,
        status: row.status,
        previousStatus: previous?.status ?? null,
        tier: row.tier,
        billingPeriod: row.billingPeriod,
        currentPeriodEnd: row.currentPeriodEnd?.toISOString() ?? null,
        endsAt: row.endsAt?.toISOString() ?? null,
      },
    });
    return { applied: true, created: !previous, subscription: row };
  });
  if (result.applied) deliverSoon();
  return result;
}

/** The user's tier, trial flag and credit allocation follow the subscription just written. */
async function followSubscription(tx: Prisma.TransactionClient, row: Subscription, previous: Subscription | null): Promise<void> {
  const userId = row.userId;
  const current = await currentSubscription(userId, tx);
  await tx.user.update({
    where: { id: userId },
    data: {
      tier: current?.tier ?? "free",
      // The free plan is reported monthly, whatever the expired subscription was.
      billingPeriod: current?.billingPeriod ?? "monthly",
      ...(row.status === "on_trial" || row.trialEndsAt ? { hasUsedTrial: true } : {}),
    },
  });
  const isCurrent = current?.id === row.id;
  const live = givesAccess(row.status, row.endsAt) && row.status !== "paused";
  if (isCurrent && live && (!previous || previous.status === "expired")) {
    await applyMonthlyAllocation(
      { userId, tier: row.tier, cycleKey: `sub:${row.providerSubscriptionId}:start`, operation: "subscription_start" },
      tx,
    );
  } else if (isCurrent && live && previous && tierRank(row.tier) > tierRank(previous.tier)) {
    await applyMonthlyAllocation(
      {
        userId,
        tier: row.tier,
        cycleKey: `sub:${row.providerSubscriptionId}:upgrade:${row.variantId}:${row.providerUpdatedAt?.toISOString()}`,
        operation: "plan_upgrade",
      },
      tx,
    );
  } else if (row.status === "expired" && previous?.status !== "expired" && !current) {
    await applyMonthlyAllocation(
      { userId, tier: "free", cycleKey: `sub:${row.providerSubscriptionId}:expired`, operation: "subscription_expired" },
      tx,
    );
  }
}
