import { findVariant } from "@/lib/config/pricing";
import { applyMonthlyAllocation } from "@/lib/credits";
import { db } from "@/lib/db/client";
import type { Subscription } from "@/lib/generated/prisma/client";
import { log as rootLog, type Logger } from "@/lib/log";
import { normalizeEmail } from "@/lib/email/normalize-email";
import { applySubscriptionSnapshot } from "./subscriptions/apply-subscription-snapshot";
import { currentSubscription } from "./subscriptions/current-subscription";
import { grantBonusOrder } from "./checkout/grant-bonus-order";
import { appBaseUrl } from "@/lib/config/public-url";
import { lemonSqueezyFromEnv } from "./payment-provider/lemonsqueezy-client";
import type { PaymentProvider, PaymentProviderName, ProviderInvoice } from "./payment-provider/provider-types";
import { stripeFromEnv } from "./payment-provider/stripe-client";

export interface BillingSyncReport {
  provider: PaymentProviderName;
  /** renewalsAllocated: missed renewal payments whose monthly allocation was applied. */
  subscriptions: { seen: number; repaired: number; unchanged: number; unmatched: number; failed: number; renewalsAllocated: number };
  orders: { seen: number; granted: number; unmatched: number; failed: number };
  message: string;
}

const FIELDS = ["status", "tier", "variantId", "currentPeriodEnd", "trialEndsAt", "endsAt"] as const;

function differs(before: Subscription | null, after: Subscription): boolean {
  if (!before) return true;
  return FIELDS.some(
    (f) =>
      String(before[f] instanceof Date ? (before[f] as Date).getTime() : before[f]) !==
      String(after[f] instanceof Date ? (after[f] as Date).getTime() : after[f]),
  );
}

/**
 * Reconciliation (npm run billing:sync, and the daily cron with BILLING_SYNC_IN_CRON=true): Lemon
 * Squeezy retries a webhook only 3 times in about 2.6 minutes (Stripe for 3 days, but an endpoint can
 * be down longer), so a missed event is repaired by re-reading every subscription and paid order of
 * the store (Stripe: completed one-time checkouts) and applying them through the same
 * idempotent paths as the webhook: snapshots by updated_at (never overwriting newer state), bonus
 * grants once per order id. Safe to run any number of times. With the local simulator the local
 * database is the provider's store, so there is nothing to re-read.
 */
export async function syncBilling(options: { provider?: PaymentProvider | null; log?: Logger } = {}): Promise<BillingSyncReport> {
  const log = options.log ?? rootLog;
  const provider = options.provider === undefined ? (stripeFromEnv(appBaseUrl()) ?? lemonSqueezyFromEnv()) : options.provider;
  const report: BillingSyncReport = {
    provider: provider?.name ?? "simulator",
    subscriptions: { seen: 0, repaired: 0, unchanged: 0, unmatched: 0, failed: 0, renewalsAllocated: 0 },
    orders: { seen: 0, granted: 0, unmatched: 0, failed: 0 },
    message: "",
  };
  if (!provider || provider.name === "simulator") {
    report.message = "Local checkout simulator: the local database is the provider's store; nothing to reconcile";
    return report;
  }
  const prisma = await db();
  const userByEmail = async (email: unknown) =>
    typeof email === "string" && email.includes("@")
      ? ((await prisma.user.findUnique({ where: { email: normalizeEmail(email) }, select: { id: true } }))?.id ?? null)
      : null;

  const seen = new Set<string>();
  const applyOne = async (remote: Awaited<ReturnType<PaymentProvider["getSubscription"]>>) => {
    if (!remote) return;
    seen.add(remote.id);
    report.subscriptions.seen++;
    try {
      const before = await prisma.subscription.findUnique({ where: { providerSubscriptionId: remote.id } });
      const userId = before?.userId ?? (await userByEmail(remote.attributes.user_email));
      if (!userId) {
        report.subscriptions.unmatched++;
        return;
      }
      const variant = findVariant(remote.attributes.variant_id);
      if (!variant || variant.kind !== "plan") {
        report.subscriptions.unmatched++;
        return;
      }
      const result = await applySubscriptionSnapshot({
        userId,
        subscription: remote,
        event: "subscription_updated",
        provider: provider.name,
        source: "reconciliation",
      });
      if (result.applied && differs(before, result.subscription)) {
        report.subscriptions.repaired++;
        log.warn("billing sync repaired a subscription", { subscriptionId: remote.id, status: result.subscription.status });
      } else report.subscriptions.unchanged++;
      if (await allocateMissedRenewal(provider, userId, result.subscription)) {
        report.subscriptions.renewalsAllocated++;
        log.warn("billing sync applied a missed renewal allocation", { subscriptionId: remote.id, userId });
      }
    } catch (error) {
      report.subscriptions.failed++;
      log.error("billing sync failed for a subscription", { subscriptionId: remote.id, error });
    }
  };

  for await (const remote of provider.listSubscriptions()) await applyOne(remote);
  // Local subscriptions the listing did not include (another store, filtered out): ask one by one.
  const missing = await prisma.subscription.findMany({
    where: { provider: provider.name, status: { not: "expired" }, providerSubscriptionId: { notIn: [...seen] } },
    select: { providerSubscriptionId: true },
    take: 1000,
  });
  for (const { providerSubscriptionId } of missing) {
    try {
      await applyOne(await provider.getSubscription(providerSubscriptionId));
    } catch (error) {
      report.subscriptions.failed++;
      log.error("billing sync could not read a subscription", { subscriptionId: providerSubscriptionId, error });
    }
  }

  for await (const order of provider.listOrders()) {
    const a = order.attributes;
    const match = findVariant(a.first_order_item?.variant_id);
    if (!match || match.kind !== "bonus" || (a.status && a.status !== "paid")) continue;
    report.orders.seen++;
    try {
      const existing = await prisma.bonusPurchase.findUnique({ where: { orderId: order.id }, select: { id: true } });
      if (existing) continue;
      const userId = await userByEmail(a.user_email);
      if (!userId) {
        report.orders.unmatched++;
        continue;
      }
      const { granted } = await grantBonusOrder({ userId, order });
      if (granted) {
        report.orders.granted++;
        log.warn("billing sync granted a missed bonus purchase", { orderId: order.id, userId });
      }
    } catch (error) {
      report.orders.failed++;
      log.error("billing sync failed for an order", { orderId: order.id, error });
    }
  }
  const s = report.subscriptions;
  report.message = `Reconciled ${s.seen} subscriptions (${s.repaired} repaired, ${s.renewalsAllocated} missed renewals allocated, ${s.unmatched} unmatched, ${s.failed} failed) and ${report.orders.seen} bonus orders (${report.orders.granted} granted)`;
  return report;
}

/**
 * A lost subscription_payment_success for a renewal leaves the user without the new cycle's credits.
 * The latest paid renewal invoice is applied with the webhook's own key (`invoice:<id>`), so the
 * webhook arriving late changes nothing and a second sync neither. Only the latest one, and only when
 * no reset happened since it was paid (a later reset, such as an upgrade, already set the balance).
 */
async function allocateMissedRenewal(provider: PaymentProvider, userId: string, subscription: Subscription): Promise<boolean> {
  if (subscription.status !== "active") return false;
  let latest: ProviderInvoice | null = null;
  let latestAt = 0;
  for await (const invoice of provider.listSubscriptionInvoices(subscription.providerSubscriptionId)) {
    const a = invoice.attributes;
    const at = a.created_at ? Date.parse(a.created_at) : NaN;
    if (a.billing_reason !== "renewal" || a.status !== "paid" || !Number.isFinite(at)) continue;
    if (!latest || at > latestAt) [latest, latestAt] = [invoice, at];
  }
  if (!latest) return false;
  const invoiceId = latest.id;
  const prisma = await db();
  return prisma.$transaction(async (tx) => {
    // Lock the balance so the "no reset since" check and the allocation see the same state.
    const [balance] = await tx.$queryRaw<{ reset_at: Date | null }[]>`
      SELECT reset_at FROM credit_balances WHERE user_id = ${userId} FOR UPDATE`;
    if (!balance || (balance.reset_at && balance.reset_at.getTime() >= latestAt)) return false;
    if ((await currentSubscription(userId, tx))?.id !== subscription.id) return false;
    const { applied } = await applyMonthlyAllocation(
      { userId, tier: subscription.tier, cycleKey: `invoice:${invoiceId}`, operation: "subscription_renewal" },
      tx,
    );
    return applied;
  });
}
