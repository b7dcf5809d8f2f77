import { randomBytes } from "node:crypto";
import { flags } from "@/lib/config/flags";
import { findVariant, pricingCatalog } from "@/lib/config/pricing";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { Subscription } from "@/lib/generated/prisma/client";
import { createLogger } from "@/lib/log";
import { processPaymentWebhook } from "@/lib/webhooks/payment/process-payment-webhook";
import { signPaymentBody } from "@/lib/webhooks/payment/signature";
import type { CheckoutRequest, PaymentProvider, ProviderInvoice, ProviderOrder, ProviderSubscription, SubscriptionAttributes } from "./provider-types";
import { paymentWebhookSecret } from "./signing-secret";
import { signSimulatorToken, verifySimulatorToken } from "./simulator-token";
import { snapshotFromRecord } from "./record-snapshot";

/**
 * The local checkout simulator: the payment provider when Lemon Squeezy is not configured. Checkout
 * URLs point at /simulator/checkout/<signed id>; completing the purchase makes the server deliver
 * correctly signed Lemon Squeezy-shaped webhooks to the same processing function the webhook route
 * uses. The local database plays the provider's subscription store; cancel, resume and plan changes
 * answer the new subscription and deliver the matching webhook.
 */
export const CHECKOUT_TTL_SECONDS = 24 * 60 * 60;
export const PORTAL_TTL_SECONDS = 24 * 60 * 60;

export interface SimulatedCheckout {
  cid: string;
  variantId: string;
  userId?: string | null;
  email?: string | null;
  redirectUrl: string;
  cancelUrl?: string | null;
  discountCode?: string | null;
}

export interface SimulatedPortalAccess {
  sub: string;
  uid: string;
}

const log = createLogger({ component: "checkout-simulator" });

function addPeriod(from: Date, period: "monthly" | "yearly"): Date {
  const d = new Date(from);
  if (period === "yearly") d.setUTCFullYear(d.getUTCFullYear() + 1);
  else d.setUTCMonth(d.getUTCMonth() + 1);
  return d;
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** Signs a Lemon Squeezy-shaped event and runs it through the webhook processing, as a delivery would. */
export async function deliverSimulatedEvent(eventName: string, data: { type: string; id: string; attributes: Record<string, unknown> }, custom: Record<string, string>) {
  const secret = paymentWebhookSecret();
  if (!secret) throw new AppError("provider_not_configured", "The checkout simulator needs PAYMENT_WEBHOOK_SECRET in production");
  const rawBody = JSON.stringify({
    meta: { event_name: eventName, custom_data: custom, test_mode: true, webhook_id: "simulator" },
    data: { ...data, relationships: {}, links: {} },
  });
  const result = await processPaymentWebhook(rawBody, signPaymentBody(rawBody, secret), log);
  log.info("simulated webhook delivered", { event: eventName, objectId: data.id, result: result.result });
  return result;
}

export class CheckoutSimulator implements PaymentProvider {
  readonly name = "simulator" as const;

  constructor(private readonly baseUrl: string) {}

  async createCheckout(req: CheckoutRequest): Promise<{ url: string }> {
    if (!findVariant(req.variantId)) throw new AppError("validation_failed", `Unknown variant ${req.variantId}`);
    const checkout: SimulatedCheckout = {
      cid: randomBytes(9).toString("base64url"),
      variantId: req.variantId,
      userId: req.userId ?? null,
      email: req.email ?? null,
      redirectUrl: req.redirectUrl,
      cancelUrl: req.cancelUrl ?? null,
      discountCode: req.discountCode ?? null,
    };
    const token = signSimulatorToken(checkout as unknown as Record<string, unknown>, CHECKOUT_TTL_SECONDS);
    return { url: `${this.baseUrl}/simulator/checkout/${token}` };
  }

  private async row(id: string): Promise<{ row: Subscription; email: string | null }> {
    const prisma = await db();
    const row = await prisma.subscription.findUnique({ where: { providerSubscriptionId: id }, include: { user: { select: { email: true } } } });
    if (!row) throw new AppError("not_found", "Subscription not found at the payment provider");
    return { row, email: row.user.email };
  }

  async getSubscription(id: string): Promise<ProviderSubscription | null> {
    const prisma = await db();
    const row = await prisma.subscription.findUnique({ where: { providerSubscriptionId: id }, include: { user: { select: { email: true } } } });
    return row ? snapshotFromRecord(row, row.user.email, { updated_at: (row.providerUpdatedAt ?? row.updatedAt).toISOString() }) : null;
  }

  private async mutate(id: string, event: string, patch: (row: Subscription, now: Date) => Partial<SubscriptionAttributes>): Promise<ProviderSubscription> {
    const { row, email } = await this.row(id);
    const now = new Date();
    const snapshot = snapshotFromRecord(row, email, patch(row, now), now);
    await deliverSimulatedEvent(event, { type: "subscriptions", ...snapshot }, { user_id: row.userId });
    return snapshot;
  }

  changeSubscriptionVariant(id: string, variantId: string): Promise<ProviderSubscription> {
    const match = findVariant(variantId);
    if (!match || match.kind !== "plan") throw new AppError("validation_failed", `Unknown plan variant ${variantId}`);
    return this.mutate(id, "subscription_updated", () => ({ variant_id: variantId, variant_name: `${match.tier.name} ${match.billingPeriod}` }));
  }

  cancelSubscription(id: string): Promise<ProviderSubscription> {
    return this.mutate(id, "subscription_cancelled", (row, now) => {
      if (row.status === "expired") throw new AppError("not_found", "Subscription has already expired");
      const endsAt = row.endsAt ?? row.currentPeriodEnd ?? row.trialEndsAt ?? addPeriod(now, row.billingPeriod === "yearly" ? "yearly" : "monthly");
      return { status: "cancelled", cancelled: true, ends_at: endsAt.toISOString() };
    });
  }

  resumeSubscription(id: string): Promise<ProviderSubscription> {
    return this.mutate(id, "subscription_resumed", (row, now) => {
      if (row.status !== "cancelled") throw new AppError("bad_request", "Only a cancelled subscription can be resumed");
      if (row.endsAt && row.endsAt <= now) throw new AppError("bad_request", "The subscription has already ended");
      return { status: row.trialEndsAt && row.trialEndsAt > now ? "on_trial" : "active", cancelled: false, ends_at: null };
    });
  }

  /** Developer actions of the simulated portal: the events a real provider sends on its own. */
  async simulatePaymentFailure(id: string): Promise<void> {
    const { row, email } = await this.row(id);
    const now = new Date();
    await deliverSimulatedEvent("subscription_payment_failed", invoice(row, email, "renewal", "failed", now), { user_id: row.userId });
    await deliverSimulatedEvent("subscription_updated", { type: "subscriptions", ...snapshotFromRecord(row, email, { status: "past_due" }, now) }, { user_id: row.userId });
  }

  async simulatePaymentRecovery(id: string): Promise<void> {
    const { row, email } = await this.row(id);
    const now = new Date();
    await deliverSimulatedEvent("subscription_payment_recovered", invoice(row, email, "renewal", "paid", now), { user_id: row.userId });
    await deliverSimulatedEvent("subscription_updated", { type: "subscriptions", ...snapshotFromRecord(row, email, { status: "active" }, now) }, { user_id: row.userId });
  }

  async simulateRenewal(id: string): Promise<void> {
    const { row, email } = await this.row(id);
    const now = new Date();
    const period = row.billingPeriod === "yearly" ? "yearly" : "monthly";
    const renewsAt = addPeriod(row.currentPeriodEnd && row.currentPeriodEnd > now ? row.currentPeriodEnd : now, period);
    await deliverSimulatedEvent("subscription_payment_success", invoice(row, email, "renewal", "paid", now), { user_id: row.userId });
    await deliverSimulatedEvent(
      "subscription_updated",
      { type: "subscriptions", ...snapshotFromRecord(row, email, { status: "active", renews_at: renewsAt.toISOString(), trial_ends_at: iso(row.trialEndsAt) }, now) },
      { user_id: row.userId },
    );
  }

  async customerPortalUrl(id: string): Promise<string> {
    const { row } = await this.row(id);
    const token = signSimulatorToken({ sub: row.providerSubscriptionId, uid: row.userId }, PORTAL_TTL_SECONDS);
    return `${this.baseUrl}/simulator/portal?token=${encodeURIComponent(token)}`;
  }

  // The local database is the simulator's store: there is nothing remote to reconcile.
  async *listSubscriptions(): AsyncIterable<ProviderSubscription> {}
  async *listOrders(): AsyncIterable<ProviderOrder> {}

  async *listSubscriptionInvoices(): AsyncIterable<ProviderInvoice> {}
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

/** Reads a simulator checkout id (null when forged or expired) with what it sells. */
export function readSimulatedCheckout(id: string) {
  const checkout = verifySimulatorToken<SimulatedCheckout & Record<string, unknown>>(id);
  if (!checkout) return null;
  const match = findVariant(checkout.variantId);
  if (!match) return null;
  return { checkout, match };
}

/**
 * "Complete purchase": delivers subscription_created + subscription_payment_success for a plan, or
 * order_created for a bonus package, then answers where to send the buyer. Ids derive from the
 * checkout id, so completing the same checkout twice grants nothing twice.
 */
export async function completeSimulatedCheckout(id: string, input: { email?: string | null } = {}): Promise<{ redirectUrl: string; kind: "plan" | "bonus" }> {
  const read = readSimulatedCheckout(id);
  if (!read) throw new AppError("not_found", "Checkout not found or expired");
  const { checkout, match } = read;
  const prisma = await db();
  const user = checkout.userId ? await prisma.user.findUnique({ where: { id: checkout.userId } }) : null;
  const email = (checkout.email || input.email || user?.email || "").trim().toLowerCase() || null;
  if (!user && !email) throw new AppError("validation_failed", "An email address is required to complete the purchase");
  if (email && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw new AppError("validation_failed", "Invalid email address");
  const custom: Record<string, string> = user ? { user_id: user.id } : {};
  const now = new Date();
  const customerId = `sim_cus_${(user?.id ?? email ?? "guest").replace(/[^a-zA-Z0-9]/g, "").slice(0, 24)}`;

  if (match.kind === "bonus") {
    const orderId = `sim_ord_${checkout.cid}`;
    await deliverSimulatedEvent(
      "order_created",
      {
        type: "orders",
        id: orderId,
        attributes: {
          store_id: "simulator",
          customer_id: customerId,
          identifier: checkout.cid,
          user_email: email,
          status: "paid",
          total: Math.round(match.bonusPackage.price * 100),
          currency: pricingCatalog().currency,
          discount_code: checkout.discountCode ?? null,
          first_order_item: { variant_id: checkout.variantId, product_id: "simulator-bonus", price: Math.round(match.bonusPackage.price * 100), quantity: 1 },
          created_at: now.toISOString(),
          updated_at: now.toISOString(),
          test_mode: true,
        },
      },
      custom,
    );
    return { redirectUrl: checkout.redirectUrl, kind: "bonus" };
  }

  const subscriptionId = `sim_sub_${checkout.cid}`;
  const trialDays = pricingCatalog().trialDays;
  const onTrial = flags().pricingModel === "classic_saas" && trialDays > 0 && !user?.hasUsedTrial;
  const trialEndsAt = onTrial ? new Date(now.getTime() + trialDays * 86_400_000) : null;
  const renewsAt = trialEndsAt ?? addPeriod(now, match.billingPeriod);
  const attributes: SubscriptionAttributes = {
    store_id: "simulator",
    customer_id: customerId,
    order_id: `sim_ord_${checkout.cid}`,
    product_id: `simulator-${match.tier.key}`,
    variant_id: checkout.variantId,
    product_name: match.tier.name,
    variant_name: `${match.tier.name} ${match.billingPeriod}`,
    user_email: email,
    status: onTrial ? "on_trial" : "active",
    cancelled: false,
    pause: null,
    trial_ends_at: iso(trialEndsAt),
    renews_at: renewsAt.toISOString(),
    ends_at: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    urls: { customer_portal: null, update_payment_method: null },
    test_mode: true,
  };
  await deliverSimulatedEvent("subscription_created", { type: "subscriptions", id: subscriptionId, attributes }, custom);
  const price = match.billingPeriod === "yearly" ? match.tier.yearlyPrice : match.tier.monthlyPrice;
  await deliverSimulatedEvent(
    "subscription_payment_success",
    {
      type: "subscription-invoices",
      id: `sim_inv_${checkout.cid}`,
      attributes: {
        store_id: "simulator",
        subscription_id: subscriptionId,
        customer_id: customerId,
        user_email: email,
        billing_reason: "initial",
        status: "paid",
        total: onTrial ? 0 : Math.round(price * 100),
        currency: pricingCatalog().currency,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
        test_mode: true,
      },
    },
    custom,
  );
  return { redirectUrl: checkout.redirectUrl, kind: "plan" };
}
