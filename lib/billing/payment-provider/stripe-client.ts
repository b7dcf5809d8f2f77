import Stripe from "stripe";
import { env } from "@/lib/config/env";
import { findVariant } from "@/lib/config/pricing";
import { AppError } from "@/lib/errors";
import type {
  CheckoutRequest,
  InvoiceAttributes,
  OrderAttributes,
  PaymentProvider,
  ProviderInvoice,
  ProviderOrder,
  ProviderSubscription,
  SubscriptionAttributes,
  SubscriptionStatus,
} from "./provider-types";

/**
 * Stripe through the official package: the only file that calls Stripe's API or verifies its
 * signatures. Stripe's objects become the provider shapes every other module already speaks
 * (subscription status, variant = price id, invoices, orders = paid checkout sessions), so the state
 * table, allocations, receipts and refunds are one code path for both providers.
 */
export type StripeEvent = Stripe.Event;
export type StripeInvoice = Stripe.Invoice;

/** Stripe's answer to "a delivery older than this is refused" (seconds): the package's default. */
export const STRIPE_SIGNATURE_TOLERANCE_SECONDS = 300;
/** The key and webhook secret of the local simulator outside production (documented, never used in production). */
export const DEV_STRIPE_SECRET_KEY = "sk_test_local_simulator";
export const DEV_STRIPE_WEBHOOK_SECRET = "whsec_dev_local_simulator_not_for_production";

const iso = (seconds: number | null | undefined): string | null => (seconds ? new Date(seconds * 1000).toISOString() : null);
const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value ? (typeof value === "string" ? value : value.id) : null;

/** Stripe's subscription status in the provider state table (docs/API-NOTES.md "Payments"). */
export function subscriptionStatusOf(sub: Stripe.Subscription): SubscriptionStatus {
  switch (sub.status) {
    case "trialing":
      return sub.cancel_at_period_end ? "cancelled" : "on_trial";
    case "active":
      return sub.cancel_at_period_end || sub.cancel_at ? "cancelled" : "active";
    case "past_due":
      return "past_due";
    case "unpaid":
      return "unpaid";
    case "paused":
      return "paused";
    case "canceled":
    case "incomplete_expired":
      return "expired";
    default:
      // incomplete: never applied (stripeEventMeaning and the lists skip it); "unpaid" if one is read directly.
      return "unpaid";
  }
}

function firstItem(sub: Stripe.Subscription): Stripe.SubscriptionItem | undefined {
  return sub.items?.data?.[0];
}

/**
 * A Stripe subscription in the provider shape. Stripe objects carry no version, so `at` (the event's
 * `created`, or now for an API read) stands for updated_at: an older event never overwrites newer state.
 */
export function subscriptionAttributes(sub: Stripe.Subscription, at: Date, email: string | null = null): SubscriptionAttributes {
  const subItem = firstItem(sub);
  const periodEnd = iso(subItem?.current_period_end);
  const endsAt = sub.ended_at ? iso(sub.ended_at) : sub.cancel_at_period_end ? periodEnd : iso(sub.cancel_at);
  return {
    customer_id: idOf(sub.customer),
    variant_id: subItem?.price?.id ?? "",
    product_id: idOf(subItem?.price?.product as string | null) ?? null,
    user_email: email,
    status: subscriptionStatusOf(sub),
    cancelled: Boolean(sub.cancel_at_period_end || sub.canceled_at),
    pause: sub.pause_collection ? { mode: sub.pause_collection.behavior, resumes_at: iso(sub.pause_collection.resumes_at) } : null,
    trial_ends_at: iso(sub.trial_end),
    renews_at: sub.cancel_at_period_end ? null : periodEnd,
    ends_at: endsAt,
    created_at: iso(sub.created),
    updated_at: at.toISOString(),
    urls: null,
    test_mode: !sub.livemode,
  };
}

const BILLING_REASONS: Record<string, string> = {
  subscription_create: "initial",
  subscription_cycle: "renewal",
  subscription_update: "updated",
};

/** The subscription an invoice belongs to (null: a one-off invoice). */
export function invoiceSubscriptionId(invoice: Stripe.Invoice): string | null {
  return idOf(invoice.parent?.subscription_details?.subscription ?? null);
}

/** A subscription invoice in the provider shape (amounts in cents). */
export function invoiceAttributes(invoice: Stripe.Invoice, at: Date): InvoiceAttributes {
  return {
    subscription_id: invoiceSubscriptionId(invoice) ?? "",
    customer_id: idOf(invoice.customer),
    user_email: invoice.customer_email ?? null,
    billing_reason: BILLING_REASONS[invoice.billing_reason ?? ""] ?? invoice.billing_reason ?? null,
    status: invoice.status,
    total: invoice.status === "paid" ? invoice.amount_paid : invoice.total,
    currency: invoice.currency?.toUpperCase() ?? "USD",
    created_at: iso(invoice.created),
    updated_at: at.toISOString(),
    urls: { invoice_url: invoice.hosted_invoice_url ?? null },
  };
}

/** A paid one-time checkout (a credit pack) as an order: its id is the PaymentIntent's, which refunds and disputes name. */
export function orderOfSession(session: Stripe.Checkout.Session, at: Date): ProviderOrder | null {
  const paymentIntent = idOf(session.payment_intent);
  if (session.mode !== "payment" || !paymentIntent) return null;
  const attributes: OrderAttributes = {
    customer_id: idOf(session.customer),
    user_email: session.customer_details?.email ?? session.customer_email ?? null,
    status: session.payment_status === "paid" ? "paid" : session.payment_status,
    total: session.amount_total ?? 0,
    currency: session.currency?.toUpperCase() ?? "USD",
    first_order_item: { variant_id: session.metadata?.price_id ?? "" },
    created_at: iso(session.created),
    updated_at: at.toISOString(),
  };
  return { id: paymentIntent, attributes };
}

/** A paid PaymentIntent that bought a pack without a checkout (auto-recharge) as an order. */
export function orderOfIntent(intent: Stripe.PaymentIntent, at: Date): ProviderOrder {
  return {
    id: intent.id,
    attributes: {
      customer_id: idOf(intent.customer),
      status: intent.status === "succeeded" ? "paid" : intent.status,
      total: intent.amount_received || intent.amount,
      currency: intent.currency.toUpperCase(),
      first_order_item: { variant_id: intent.metadata?.price_id ?? "" },
      created_at: iso(intent.created),
      updated_at: at.toISOString(),
    },
  };
}

/** A charge's refunds so far in the provider's order shape (what the refund rules read). */
export function refundAttributes(charge: Stripe.Charge, at: Date): OrderAttributes & { refunded_amount: number } {
  return {
    customer_id: idOf(charge.customer),
    user_email: charge.billing_details?.email ?? null,
    status: charge.refunded ? "refunded" : "partial_refund",
    total: charge.amount,
    refunded_amount: charge.amount_refunded,
    currency: charge.currency.toUpperCase(),
    first_order_item: { variant_id: charge.metadata?.price_id ?? "" },
    created_at: iso(charge.created),
    refunded_at: at.toISOString(),
    updated_at: at.toISOString(),
    urls: { receipt: charge.receipt_url ?? null },
  };
}

export interface DisputeAttributes {
  dispute_id: string;
  /** open | won | lost */
  status: "open" | "won" | "lost";
  amount: number;
  reason: string | null;
  created_at: string | null;
  updated_at: string;
  [k: string]: unknown;
}

/** A dispute in the provider shape: a closed one won (or a warning closed, prevented) releases, lost takes back. */
export function disputeAttributes(dispute: Stripe.Dispute, at: Date): DisputeAttributes {
  const status = dispute.status === "lost" ? "lost" : ["won", "warning_closed", "prevented"].includes(dispute.status) ? "won" : "open";
  return {
    dispute_id: dispute.id,
    status,
    amount: dispute.amount,
    reason: dispute.reason ?? null,
    created_at: iso(dispute.created),
    updated_at: at.toISOString(),
  };
}

export type OffSessionCharge =
  | { status: "succeeded"; paymentIntentId: string; receiptUrl: string | null }
  | { status: "processing"; paymentIntentId: string }
  | { status: "failed"; code: string; message: string; paymentIntentId: string | null };

/** Stripe's error as ours: its message for the client when it is about the request, else upstream_failed. */
function fromStripeError(error: unknown): AppError {
  if (error instanceof Stripe.errors.StripeInvalidRequestError) {
    if (error.statusCode === 404) return new AppError("not_found", `Payment provider: ${error.message}`, { cause: error });
    return new AppError("validation_failed", `Payment provider refused the request: ${error.message}`, { cause: error });
  }
  return new AppError("upstream_failed", "Payment provider is unreachable or failed", { cause: error });
}

export class StripePaymentProvider implements PaymentProvider {
  readonly name = "stripe" as const;

  constructor(
    private readonly stripe: Stripe,
    private readonly baseUrl: string,
  ) {}

  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw fromStripeError(error);
    }
  }

  async createCheckout(req: CheckoutRequest): Promise<{ url: string }> {
    const match = findVariant(req.variantId);
    if (!match) throw new AppError("validation_failed", `Unknown variant ${req.variantId}`);
    const metadata = { ...(req.custom ?? {}), ...(req.userId ? { user_id: req.userId } : {}), price_id: req.variantId };
    const session = await this.call(() =>
      this.stripe.checkout.sessions.create({
        mode: match.kind === "plan" ? "subscription" : "payment",
        line_items: [{ price: req.variantId, quantity: 1 }],
        success_url: req.redirectUrl,
        cancel_url: req.cancelUrl ?? req.redirectUrl,
        ...(req.customerId ? { customer: req.customerId } : req.email ? { customer_email: req.email } : {}),
        ...(req.userId ? { client_reference_id: req.userId } : {}),
        ...(req.discountCode ? { allow_promotion_codes: true } : {}),
        metadata,
        ...(match.kind === "plan"
          ? { subscription_data: { metadata, ...(req.trialDays ? { trial_period_days: req.trialDays } : {}) } }
          : // The card is saved for payments made without the buyer (auto-recharge), as Stripe's top-up flows do.
            { payment_intent_data: { metadata, setup_future_usage: "off_session" as const } }),
      }),
    );
    if (!session.url) throw new AppError("upstream_failed", "Payment provider answered a checkout without an address");
    return { url: session.url };
  }

  private async snapshot(sub: Stripe.Subscription): Promise<ProviderSubscription> {
    return { id: sub.id, attributes: subscriptionAttributes(sub, new Date()) };
  }

  async getSubscription(id: string): Promise<ProviderSubscription | null> {
    try {
      return await this.snapshot(await this.stripe.subscriptions.retrieve(id));
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404) return null;
      throw fromStripeError(error);
    }
  }

  async changeSubscriptionVariant(id: string, variantId: string): Promise<ProviderSubscription> {
    const current = await this.call(() => this.stripe.subscriptions.retrieve(id));
    const subItem = firstItem(current);
    if (!subItem) throw new AppError("conflict", "The subscription has no item to change");
    return this.snapshot(
      await this.call(() =>
        this.stripe.subscriptions.update(id, { items: [{ id: subItem.id, price: variantId }], proration_behavior: "create_prorations" }),
      ),
    );
  }

  async cancelSubscription(id: string): Promise<ProviderSubscription> {
    return this.snapshot(await this.call(() => this.stripe.subscriptions.update(id, { cancel_at_period_end: true })));
  }

  async resumeSubscription(id: string): Promise<ProviderSubscription> {
    return this.snapshot(await this.call(() => this.stripe.subscriptions.update(id, { cancel_at_period_end: false })));
  }

  async customerPortalUrl(id: string): Promise<string> {
    const sub = await this.call(() => this.stripe.subscriptions.retrieve(id));
    const customer = idOf(sub.customer);
    if (!customer) throw new AppError("not_found", "The subscription has no customer at the payment provider");
    return this.customerPortalUrlOf(customer);
  }

  /** The Billing Portal of a customer (an account that bought packs only has no subscription to name). */
  async customerPortalUrlOf(customer: string): Promise<string> {
    const portal = await this.call(() =>
      this.stripe.billingPortal.sessions.create({ customer, return_url: `${this.baseUrl}/dashboard/billing` }),
    );
    return portal.url;
  }

  async *listSubscriptions(): AsyncIterable<ProviderSubscription> {
    for await (const sub of this.stripe.subscriptions.list({ status: "all", limit: 100 })) {
      if (sub.status === "incomplete") continue;
      const snapshot = await this.snapshot(sub);
      // Reconciliation matches a subscription it has no record of by the buyer's email.
      snapshot.attributes.user_email = await this.customerEmail(idOf(sub.customer));
      yield snapshot;
    }
  }

  async *listOrders(): AsyncIterable<ProviderOrder> {
    for await (const session of this.stripe.checkout.sessions.list({ status: "complete", limit: 100 })) {
      const order = orderOfSession(session, new Date());
      if (order) yield order;
    }
  }

  async *listSubscriptionInvoices(subscriptionId: string): AsyncIterable<ProviderInvoice> {
    for await (const invoice of this.stripe.invoices.list({ subscription: subscriptionId, limit: 100 }))
      yield { id: invoice.id ?? "", attributes: invoiceAttributes(invoice, new Date()) };
  }

  /** The subscription invoice a payment paid (null: not an invoice's payment, e.g. a credit pack). */
  async invoiceOfPayment(paymentIntentId: string): Promise<Stripe.Invoice | null> {
    const links = await this.call(() =>
      this.stripe.invoicePayments.list({ payment: { type: "payment_intent", payment_intent: paymentIntentId }, limit: 1 }),
    );
    const invoiceId = idOf(links.data[0]?.invoice as string | null);
    if (!invoiceId) return null;
    return this.call(() => this.stripe.invoices.retrieve(invoiceId));
  }

  /** The card a customer saved for payments made without them (auto-recharge): the default one, else the first. */
  async savedCard(customerId: string): Promise<{ id: string; label: string } | null> {
    const customer = await this.call(() => this.stripe.customers.retrieve(customerId));
    if ("deleted" in customer && customer.deleted) return null;
    const cards = await this.call(() => this.stripe.customers.listPaymentMethods(customerId, { limit: 10 }));
    const preferred = idOf((customer as Stripe.Customer).invoice_settings?.default_payment_method as string | null);
    const card = cards.data.find((m) => m.id === preferred) ?? cards.data[0];
    if (!card) return null;
    return { id: card.id, label: card.card ? `${card.card.brand} ending ${card.card.last4}` : card.type };
  }

  /**
   * A payment made without the customer (off-session) with their saved card, once per idempotency
   * key (a retry after a lost answer gets the same PaymentIntent). A decline or a bank that wants the
   * customer present is an answer (failed, with Stripe's code), not an error; an unreachable Stripe throws.
   */
  async chargeSavedCard(input: {
    customerId: string;
    amount: number;
    currency: string;
    description: string;
    metadata: Record<string, string>;
    idempotencyKey: string;
  }): Promise<OffSessionCharge> {
    const card = await this.savedCard(input.customerId);
    if (!card)
      return {
        status: "failed",
        code: "no_saved_card",
        message: "No saved card: buy a credit pack once to save one",
        paymentIntentId: null,
      };
    try {
      const intent = await this.stripe.paymentIntents.create(
        {
          amount: input.amount,
          currency: input.currency.toLowerCase(),
          customer: input.customerId,
          payment_method: card.id,
          off_session: true,
          confirm: true,
          description: input.description,
          metadata: input.metadata,
        },
        { idempotencyKey: input.idempotencyKey },
      );
      if (intent.status === "succeeded") return { status: "succeeded", paymentIntentId: intent.id, receiptUrl: null };
      if (intent.status === "processing") return { status: "processing", paymentIntentId: intent.id };
      return {
        status: "failed",
        code: "authentication_required",
        message: "The bank asks the cardholder to confirm this payment",
        paymentIntentId: intent.id,
      };
    } catch (error) {
      if (error instanceof Stripe.errors.StripeCardError) {
        const intent = (error.raw as { payment_intent?: { id?: string } } | undefined)?.payment_intent;
        return { status: "failed", code: error.code ?? "card_declined", message: error.message, paymentIntentId: intent?.id ?? null };
      }
      throw fromStripeError(error);
    }
  }

  /** The receipt of a PaymentIntent's charge (a pack's; Stripe's checkout events do not carry it). */
  async receiptUrlOfPayment(paymentIntentId: string): Promise<string | null> {
    const intent = await this.call(() => this.stripe.paymentIntents.retrieve(paymentIntentId));
    const chargeId = idOf(intent.latest_charge as string | null);
    if (!chargeId) return null;
    return (await this.call(() => this.stripe.charges.retrieve(chargeId))).receipt_url ?? null;
  }

  /** The email of a customer (subscription events name only the customer's id). */
  async customerEmail(customerId: string | null): Promise<string | null> {
    if (!customerId) return null;
    const customer = await this.call(() => this.stripe.customers.retrieve(customerId));
    return "deleted" in customer && customer.deleted ? null : ((customer as Stripe.Customer).email ?? null);
  }
}

/**
 * Verifies a delivery with the official package (the raw body, `Stripe-Signature`, the endpoint's
 * secret, the timestamp tolerance) before anything parses it: a missing, malformed, wrong or stale
 * signature is `signature_rejected` (400, as Stripe's own examples answer).
 */
export function verifyStripeEvent(rawBody: string, header: string | null, secret: string | undefined): StripeEvent {
  if (!header)
    throw new AppError("signature_rejected", "Signature verification failed: Stripe-Signature header is missing", {
      reason: "signature_missing",
    });
  if (!secret) throw new AppError("signature_rejected", "Signature verification failed: webhook secret is not configured");
  try {
    return Stripe.webhooks.constructEvent(rawBody, header, secret, STRIPE_SIGNATURE_TOLERANCE_SECONDS);
  } catch (error) {
    const detail =
      error instanceof Error && /timestamp outside the tolerance/i.test(error.message) ? ": timestamp outside the tolerance zone" : "";
    throw new AppError("signature_rejected", `Signature verification failed${detail}`);
  }
}

/** Where the local Stripe simulator listens (outside production, PAYMENT_PROVIDER=stripe without STRIPE_SECRET_KEY). */
export function localStripeSimulatorUrl(): string {
  return `http://127.0.0.1:${env().STRIPE_SIMULATOR_PORT}`;
}

/** True when this process should run the local Stripe simulator beside the app. */
export function localStripeSimulatorWanted(): boolean {
  const e = env();
  return e.PAYMENT_PROVIDER === "stripe" && e.PAYMENTS_ENABLED && !e.STRIPE_SECRET_KEY && !e.isProduction;
}

/** The webhook secret: STRIPE_WEBHOOK_SECRET, else (outside production only) the local simulator's. */
export function stripeWebhookSecret(): string | undefined {
  const e = env();
  if (e.STRIPE_WEBHOOK_SECRET) return e.STRIPE_WEBHOOK_SECRET;
  return e.isProduction ? undefined : DEV_STRIPE_WEBHOOK_SECRET;
}

function client(key: string, apiBase: string | undefined): Stripe {
  const base = apiBase ? new URL(apiBase) : null;
  return new Stripe(key, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    ...(base
      ? {
          protocol: base.protocol === "http:" ? "http" : "https",
          host: base.hostname,
          port: base.port ? Number(base.port) : base.protocol === "http:" ? 80 : 443,
        }
      : {}),
  });
}

/** The configured Stripe provider, or null when PAYMENT_PROVIDER is not stripe (or production lacks its key). */
export function stripeFromEnv(appBase: string): StripePaymentProvider | null {
  const e = env();
  if (e.PAYMENT_PROVIDER !== "stripe") return null;
  if (e.STRIPE_SECRET_KEY) return new StripePaymentProvider(client(e.STRIPE_SECRET_KEY, e.STRIPE_API_BASE), appBase);
  if (e.isProduction) return null;
  // The local simulator, which `npm run dev` starts beside the app (instrumentation.ts).
  return new StripePaymentProvider(client(DEV_STRIPE_SECRET_KEY, localStripeSimulatorUrl()), appBase);
}

/** What a verified Stripe event means in the provider shapes (the webhook turns it into a payment event). */
export type StripeEventMeaning =
  | {
      kind: "subscription";
      name: "subscription_created" | "subscription_updated" | "subscription_expired" | "subscription_paused" | "subscription_unpaused";
      subscription: ProviderSubscription;
      userId: string | null;
      customerId: string | null;
    }
  | {
      kind: "invoice";
      name: "subscription_payment_success" | "subscription_payment_failed";
      invoice: ProviderInvoice;
      userId: string | null;
    }
  | { kind: "order"; order: ProviderOrder; userId: string | null }
  | { kind: "refund"; paymentIntentId: string; attributes: ReturnType<typeof refundAttributes>; userId: string | null }
  | { kind: "dispute"; name: "payment_dispute_opened" | "payment_dispute_closed"; paymentIntentId: string; attributes: DisputeAttributes }
  | { kind: "ignored"; why: string };

const SUBSCRIPTION_EVENTS: Record<string, Extract<StripeEventMeaning, { kind: "subscription" }>["name"]> = {
  "customer.subscription.created": "subscription_created",
  "customer.subscription.updated": "subscription_updated",
  "customer.subscription.deleted": "subscription_expired",
  "customer.subscription.paused": "subscription_paused",
  "customer.subscription.resumed": "subscription_unpaused",
};

/** The meaning of a verified event; its time is the event's `created` (Stripe's objects carry no version). */
export function stripeEventMeaning(event: StripeEvent): StripeEventMeaning {
  const at = new Date(event.created * 1000);
  const subscriptionName = SUBSCRIPTION_EVENTS[event.type];
  if (subscriptionName) {
    const sub = event.data.object as Stripe.Subscription;
    // Its first payment has not gone through (3-D Secure, a slow method): nothing to give yet; the
    // update to active (or incomplete_expired) that follows carries the whole subscription.
    if (sub.status === "incomplete") return { kind: "ignored", why: "a subscription whose first payment is not complete yet" };
    return {
      kind: "subscription",
      name: subscriptionName,
      subscription: { id: sub.id, attributes: subscriptionAttributes(sub, at) },
      userId: sub.metadata?.user_id || null,
      customerId: idOf(sub.customer),
    };
  }
  if (event.type === "invoice.paid" || event.type === "invoice.payment_failed") {
    const invoice = event.data.object as Stripe.Invoice;
    if (!invoiceSubscriptionId(invoice)) return { kind: "ignored", why: "an invoice outside any subscription" };
    return {
      kind: "invoice",
      name: event.type === "invoice.paid" ? "subscription_payment_success" : "subscription_payment_failed",
      invoice: { id: invoice.id ?? "", attributes: invoiceAttributes(invoice, at) },
      userId: invoice.parent?.subscription_details?.metadata?.user_id || null,
    };
  }
  if (event.type === "checkout.session.completed" || event.type === "checkout.session.async_payment_succeeded") {
    const session = event.data.object as Stripe.Checkout.Session;
    const order = orderOfSession(session, at);
    if (!order) return { kind: "ignored", why: "a subscription's checkout: its subscription and invoice events carry it" };
    if (order.attributes.status !== "paid")
      return { kind: "ignored", why: `checkout payment ${String(order.attributes.status)}; the payment's own event follows` };
    return { kind: "order", order, userId: session.metadata?.user_id || session.client_reference_id || null };
  }
  if (event.type === "payment_intent.succeeded") {
    const intent = event.data.object as Stripe.PaymentIntent;
    // Checkout's packs arrive as checkout.session.completed; an auto-recharge has no checkout.
    if (!intent.metadata?.auto_recharge_id) return { kind: "ignored", why: "a checkout's payment: checkout.session.completed carries it" };
    return { kind: "order", order: orderOfIntent(intent, at), userId: intent.metadata.user_id || null };
  }
  if (event.type === "charge.refunded") {
    const charge = event.data.object as Stripe.Charge;
    const paymentIntentId = idOf(charge.payment_intent);
    if (!paymentIntentId) return { kind: "ignored", why: "a charge without a payment intent" };
    return { kind: "refund", paymentIntentId, attributes: refundAttributes(charge, at), userId: charge.metadata?.user_id || null };
  }
  if (event.type === "charge.dispute.created" || event.type === "charge.dispute.closed") {
    const dispute = event.data.object as Stripe.Dispute;
    const paymentIntentId = idOf(dispute.payment_intent);
    if (!paymentIntentId) return { kind: "ignored", why: "a dispute without a payment intent" };
    return {
      kind: "dispute",
      name: event.type === "charge.dispute.created" ? "payment_dispute_opened" : "payment_dispute_closed",
      paymentIntentId,
      attributes: disputeAttributes(dispute, at),
    };
  }
  return { kind: "ignored", why: `event type ${event.type} is not handled` };
}
