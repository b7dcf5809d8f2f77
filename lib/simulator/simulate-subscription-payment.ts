import { randomBytes } from "node:crypto";
import { addPeriod } from "@/lib/billing/payment-provider/checkout-simulator";
import { snapshotFromRecord } from "@/lib/billing/payment-provider/record-snapshot";
import { findVariant, pricingCatalog } from "@/lib/config/pricing";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { Subscription } from "@/lib/generated/prisma/client";
import { deliverSimulatedEvent } from "./deliver-simulated-event";

/**
 * The simulated portal's developer actions: the events a real provider sends on its own (a renewal
 * payment, a failed one, its recovery), delivered as signed webhooks with the status change that
 * follows them.
 */

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

async function subscriptionRow(id: string): Promise<{ row: Subscription; email: string | null }> {
  const prisma = await db();
  const row = await prisma.subscription.findUnique({
    where: { providerSubscriptionId: id },
    include: { user: { select: { email: true } } },
  });
  if (!row) throw new AppError("not_found", "Subscription not found at the payment provider");
  return { row, email: row.user.email };
}

export async function simulatePaymentFailure(id: string): Promise<void> {
  const { row, email } = await subscriptionRow(id);
  const now = new Date();
  await deliverSimulatedEvent("subscription_payment_failed", invoice(row, email, "renewal", "failed", now), { user_id: row.userId });
  await deliverSimulatedEvent(
    "subscription_updated",
    { type: "subscriptions", ...snapshotFromRecord(row, email, { status: "past_due" }, now) },
    { user_id: row.userId },
  );
}

export async function simulatePaymentRecovery(id: string): Promise<void> {
  const { row, email } = await subscriptionRow(id);
  const now = new Date();
  await deliverSimulatedEvent("subscription_payment_recovered", invoice(row, email, "renewal", "paid", now), { user_id: row.userId });
  await deliverSimulatedEvent(
    "subscription_updated",
    { type: "subscriptions", ...snapshotFromRecord(row, email, { status: "active" }, now) },
    { user_id: row.userId },
  );
}

export async function simulateRenewal(id: string): Promise<void> {
  const { row, email } = await subscriptionRow(id);
  const now = new Date();
  const period = row.billingPeriod === "yearly" ? "yearly" : "monthly";
  const renewsAt = addPeriod(row.currentPeriodEnd && row.currentPeriodEnd > now ? row.currentPeriodEnd : now, period);
  await deliverSimulatedEvent("subscription_payment_success", invoice(row, email, "renewal", "paid", now), { user_id: row.userId });
  await deliverSimulatedEvent(
    "subscription_updated",
    {
      type: "subscriptions",
      ...snapshotFromRecord(row, email, { status: "active", renews_at: renewsAt.toISOString(), trial_ends_at: iso(row.trialEndsAt) }, now),
    },
    { user_id: row.userId },
  );
}

function invoice(row: Subscription, email: string | null, reason: string, status: string, now: Date) {
  const tier = findVariant(row.variantId);
  const price = tier?.kind === "plan" ? (tier.billingPeriod === "yearly" ? tier.tier.yearlyPrice : tier.tier.monthlyPrice) : 0;
  return {
    type: "subscription-invoices",
    id: `sim_inv_${randomBytes(8).toString("hex")}`,
    attributes: {
      store_id: "simulator",
      subscription_id: row.providerSubscriptionId,
      customer_id: row.providerCustomerId,
      user_email: email,
      billing_reason: reason,
      status,
      total: Math.round(price * 100),
      currency: pricingCatalog().currency,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      test_mode: true,
    },
  };
}
