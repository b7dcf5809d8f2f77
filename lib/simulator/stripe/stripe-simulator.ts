import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { findVariant } from "@/lib/config/pricing";
import { field, item, parseFormParams, stringMap, text, type FormValue } from "./form-params";

/**
 * A local Stripe: the subset of Stripe's HTTP API this app calls (checkout sessions, customers,
 * subscriptions, invoices, invoice payments, refunds, billing portal sessions, events), with the
 * objects in the shapes of the API version the official package pins, a checkout page and a portal
 * page, and webhooks signed exactly as Stripe signs them (`Stripe-Signature: t=…,v1=…`, the
 * package's own generateTestHeaderString). The official package is pointed at it by host and port
 * (STRIPE_API_BASE). State is in memory: a restart forgets it, as a fresh test account would.
 * Prices are the pricing catalog's ids. Test controls (renew, fail a renewal, open or close a
 * dispute, make a customer's saved card decline or ask for authentication) are under /_simulator/.
 */
export interface StripeSimulatorOptions {
  /** Where webhooks go (the app's /api/webhooks/stripe). */
  webhookUrl: string | (() => string);
  webhookSecret: string;
  /** The API key clients must send (Bearer). */
  apiKey: string;
  port?: number;
  host?: string;
}

export interface StripeSimulator {
  url: string;
  port: number;
  /** Every event sent, oldest first, with the status the app answered. */
  events: Array<{ event: StripeObject; status: number | null }>;
  close(): Promise<void>;
}

type StripeObject = Record<string, unknown> & { id: string };

class SimError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param?: string,
    readonly code?: string,
    /** A card error's PaymentIntent. */
    readonly paymentIntent?: StripeObject,
  ) {
    super(message);
  }
}

const now = () => Math.floor(Date.now() / 1000);
const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString("base64url").replace(/[-_]/g, "x")}`;

function addInterval(from: number, interval: "month" | "year"): number {
  const d = new Date(from * 1000);
  if (interval === "year") d.setUTCFullYear(d.getUTCFullYear() + 1);
  else d.setUTCMonth(d.getUTCMonth() + 1);
  return Math.floor(d.getTime() / 1000);
}

function escapeHtml(value: unknown): string {
  return String(value ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A catalog variant as a Stripe price. */
function priceOf(id: string): StripeObject {
  const match = findVariant(id);
  if (!match) throw new SimError(400, `No such price: '${id}'`, "line_items[0][price]", "resource_missing");
  if (match.kind === "bonus") {
    return {
      id,
      object: "price",
      unit_amount: Math.round(match.bonusPackage.price * 100),
      currency: "usd",
      recurring: null,
      type: "one_time",
    };
  }
  const yearly = match.billingPeriod === "yearly";
  return {
    id,
    object: "price",
    unit_amount: Math.round((yearly ? match.tier.yearlyPrice : match.tier.monthlyPrice) * 100),
    currency: "usd",
    recurring: { interval: yearly ? "year" : "month", interval_count: 1 },
    type: "recurring",
  };
}

export async function startStripeSimulator(options: StripeSimulatorOptions): Promise<StripeSimulator> {
  const customers = new Map<string, StripeObject>();
  const sessions = new Map<string, StripeObject>();
  const subscriptions = new Map<string, StripeObject>();
  const invoices = new Map<string, StripeObject>();
  const paymentIntents = new Map<string, StripeObject>();
  const charges = new Map<string, StripeObject>();
  const invoicePayments = new Map<string, StripeObject>();
  const portals = new Map<string, StripeObject>();
  const idempotent = new Map<string, { status: number; body: unknown }>();
  const events: StripeSimulator["events"] = [];
  let base = "";

  const webhookUrl = () => (typeof options.webhookUrl === "function" ? options.webhookUrl() : options.webhookUrl);

  async function emit(type: string, object: StripeObject): Promise<void> {
    const event: StripeObject = {
      id: newId("evt"),
      object: "event",
      api_version: Stripe.API_VERSION,
      created: now(),
      type,
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      data: { object: structuredClone(object) },
    };
    const record = { event, status: null as number | null };
    events.push(record);
    const payload = JSON.stringify(event);
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: options.webhookSecret });
    try {
      const res = await fetch(webhookUrl(), {
        method: "POST",
        headers: {
          "content-type": "application/json; charset=utf-8",
          "stripe-signature": header,
          "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
        },
        body: payload,
        signal: AbortSignal.timeout(30_000),
      });
      record.status = res.status;
      await res.arrayBuffer();
    } catch {
      record.status = 0;
    }
  }

  function customerFor(input: { customer?: string; email?: string; name?: string; metadata?: Record<string, string> }): StripeObject {
    if (input.customer) {
      const existing = customers.get(input.customer);
      if (!existing) throw new SimError(400, `No such customer: '${input.customer}'`, "customer", "resource_missing");
      return existing;
    }
    const created: StripeObject = {
      id: newId("cus"),
      object: "customer",
      email: input.email ?? null,
      name: input.name ?? null,
      metadata: input.metadata ?? {},
      created: now(),
      invoice_settings: { default_payment_method: null },
    };
    customers.set(created.id, created);
    return created;
  }

  /** A succeeded payment: its PaymentIntent and Charge (metadata copied to the charge). */
  function pay(amount: number, currency: string, customer: string, metadata: Record<string, string>, description: string) {
    const pi: StripeObject = {
      id: newId("pi"),
      object: "payment_intent",
      amount,
      amount_received: amount,
      currency,
      customer,
      description,
      metadata,
      status: "succeeded",
      created: now(),
      latest_charge: null,
    };
    const charge: StripeObject = {
      id: newId("ch"),
      object: "charge",
      amount,
      amount_captured: amount,
      amount_refunded: 0,
      refunded: false,
      captured: true,
      paid: true,
      disputed: false,
      currency,
      customer,
      description,
      metadata,
      payment_intent: pi.id,
      status: "succeeded",
      created: now(),
      receipt_url: `${base}/receipts/${pi.id}`,
      refunds: { object: "list", data: [], has_more: false },
    };
    pi.latest_charge = charge.id;
    paymentIntents.set(pi.id, pi);
    charges.set(charge.id, charge);
    return { pi, charge };
  }

  function subscriptionItem(sub: StripeObject): Record<string, unknown> {
    return ((sub.items as { data: Record<string, unknown>[] }).data[0] ?? {}) as Record<string, unknown>;
  }

  /** An invoice of a subscription, paid (with its payment) or open after a failed attempt. */
  function invoiceFor(sub: StripeObject, reason: string, paid: boolean, trial: boolean): { invoice: StripeObject; charge?: StripeObject } {
    const subItem = subscriptionItem(sub);
    const price = subItem.price as StripeObject;
    const amount = trial ? 0 : Number(price.unit_amount);
    const customer = customers.get(String(sub.customer));
    const invoice: StripeObject = {
      id: newId("in"),
      object: "invoice",
      customer: sub.customer,
      customer_email: customer?.email ?? null,
      status: paid ? "paid" : "open",
      billing_reason: reason,
      amount_due: amount,
      amount_paid: paid ? amount : 0,
      amount_remaining: paid ? 0 : amount,
      total: amount,
      subtotal: amount,
      currency: price.currency,
      created: now(),
      period_start: subItem.current_period_start,
      period_end: subItem.current_period_end,
      attempt_count: 1,
      hosted_invoice_url: null,
      parent: { type: "subscription_details", subscription_details: { subscription: sub.id, metadata: sub.metadata } },
      lines: {
        object: "list",
        data: [{ object: "line_item", amount, currency: price.currency, pricing: { price_details: { price: price.id } } }],
        has_more: false,
      },
    };
    invoice.hosted_invoice_url = `${base}/invoices/${invoice.id}`;
    invoices.set(invoice.id, invoice);
    sub.latest_invoice = invoice.id;
    if (!paid || amount === 0) return { invoice };
    const { pi, charge } = pay(
      amount,
      String(price.currency),
      String(sub.customer),
      { ...(sub.metadata as Record<string, string>) },
      "Subscription update",
    );
    const link: StripeObject = {
      id: newId("inpay"),
      object: "invoice_payment",
      invoice: invoice.id,
      amount_paid: amount,
      currency: price.currency,
      is_default: true,
      status: "paid",
      payment: { type: "payment_intent", payment_intent: pi.id },
      created: now(),
    };
    invoicePayments.set(link.id, link);
    return { invoice, charge };
  }

  async function completeSession(session: StripeObject): Promise<void> {
    if (session.status !== "open") throw new SimError(400, `This checkout session is ${String(session.status)}`);
    const customer = customerFor({ customer: text(session.customer as string), email: text(session.customer_email as string) });
    const newCustomer = !session.customer;
    session.customer = customer.id;
    session.customer_details = { email: customer.email, name: customer.name };
    session.status = "complete";
    const line = (session.line_items as Array<{ price: string; quantity: number }>)[0];
    const price = priceOf(line.price);
    if (newCustomer) await emit("customer.created", customer);
    if (session.mode === "subscription") {
      const recurring = price.recurring as { interval: "month" | "year" };
      const subData = (session.subscription_data ?? {}) as { metadata?: Record<string, string>; trial_period_days?: number };
      const start = now();
      const trialEnd = subData.trial_period_days ? start + subData.trial_period_days * 86400 : null;
      const periodEnd = trialEnd ?? addInterval(start, recurring.interval);
      const sub: StripeObject = {
        id: newId("sub"),
        object: "subscription",
        customer: customer.id,
        status: trialEnd ? "trialing" : "active",
        cancel_at_period_end: false,
        cancel_at: null,
        canceled_at: null,
        ended_at: null,
        trial_start: trialEnd ? start : null,
        trial_end: trialEnd,
        created: start,
        start_date: start,
        pause_collection: null,
        metadata: subData.metadata ?? {},
        latest_invoice: null,
        items: {
          object: "list",
          data: [
            {
              id: newId("si"),
              object: "subscription_item",
              price,
              quantity: 1,
              current_period_start: start,
              current_period_end: periodEnd,
            },
          ],
          has_more: false,
        },
      };
      subscriptions.set(sub.id, sub);
      // A subscription's card is saved to its customer, as Stripe does.
      (customer.invoice_settings as Record<string, unknown>).default_payment_method ??= newId("pm");
      session.subscription = sub.id;
      session.payment_status = trialEnd ? "no_payment_required" : "paid";
      const { invoice } = invoiceFor(sub, "subscription_create", true, Boolean(trialEnd));
      session.invoice = invoice.id;
      await emit("checkout.session.completed", session);
      await emit("customer.subscription.created", sub);
      await emit("invoice.paid", invoice);
    } else {
      const piData = (session.payment_intent_data ?? {}) as { metadata?: Record<string, string>; setup_future_usage?: string };
      const { pi, charge } = pay(
        Number(session.amount_total),
        String(session.currency),
        customer.id,
        piData.metadata ?? {},
        `Checkout ${session.id}`,
      );
      if (piData.setup_future_usage) {
        const pm = newId("pm");
        pi.payment_method = pm;
        (customer.invoice_settings as Record<string, unknown>).default_payment_method = pm;
      }
      session.payment_intent = pi.id;
      session.payment_status = "paid";
      await emit("payment_intent.succeeded", pi);
      await emit("charge.succeeded", charge);
      await emit("checkout.session.completed", session);
    }
  }

  async function createSession(p: Record<string, FormValue>): Promise<StripeObject> {
    const mode = text(p.mode);
    if (mode !== "payment" && mode !== "subscription") throw new SimError(400, "Invalid mode: must be payment or subscription", "mode");
    const line = item(p.line_items, 0);
    const priceId = text(field(line, "price"));
    if (!priceId) throw new SimError(400, "Missing required param: line_items[0][price].", "line_items[0][price]");
    const price = priceOf(priceId);
    if ((mode === "subscription") !== Boolean(price.recurring))
      throw new SimError(
        400,
        `The price ${priceId} is ${price.recurring ? "recurring" : "one-time"}; mode ${mode} needs the other kind`,
        "line_items[0][price]",
      );
    const successUrl = text(p.success_url);
    if (!successUrl) throw new SimError(400, "Missing required param: success_url.", "success_url");
    const subData = field(p, "subscription_data");
    const trialDays = Number(text(field(subData, "trial_period_days")) ?? 0);
    const piData = field(p, "payment_intent_data");
    const session: StripeObject = {
      id: newId("cs_test"),
      object: "checkout.session",
      mode,
      status: "open",
      payment_status: "unpaid",
      success_url: successUrl,
      cancel_url: text(p.cancel_url) ?? null,
      customer: text(p.customer) ?? null,
      customer_email: text(p.customer_email) ?? null,
      client_reference_id: text(p.client_reference_id) ?? null,
      metadata: stringMap(p.metadata),
      line_items: [{ price: priceId, quantity: Number(text(field(line, "quantity")) ?? 1) }],
      amount_total: Number(price.unit_amount),
      currency: price.currency,
      subscription: null,
      payment_intent: null,
      invoice: null,
      created: now(),
      expires_at: now() + 86400,
      subscription_data:
        mode === "subscription"
          ? { metadata: stringMap(field(subData, "metadata")), trial_period_days: trialDays || undefined }
          : undefined,
      payment_intent_data:
        mode === "payment"
          ? { metadata: stringMap(field(piData, "metadata")), setup_future_usage: text(field(piData, "setup_future_usage")) }
          : undefined,
      url: null,
    };
    if (session.customer) customerFor({ customer: String(session.customer) });
    session.url = `${base}/checkout/${session.id}`;
    sessions.set(session.id, session);
    return session;
  }

  function publicSession(session: StripeObject): StripeObject {
    const { line_items: _l, subscription_data: _s, payment_intent_data: _p, ...rest } = session;
    return rest as StripeObject;
  }

  function list(all: StripeObject[], q: Record<string, FormValue>, url: string): unknown {
    const limit = Math.min(Math.max(Number(text(q.limit) ?? 10), 1), 100);
    const after = text(q.starting_after);
    const start = after ? all.findIndex((o) => o.id === after) + 1 : 0;
    const data = all.slice(start, start + limit);
    return { object: "list", url, data, has_more: start + limit < all.length };
  }

  async function updateSubscription(sub: StripeObject, p: Record<string, FormValue>): Promise<StripeObject> {
    if (sub.status === "canceled")
      throw new SimError(400, "A canceled subscription can only update its cancellation_details and metadata.");
    const cancel = text(p.cancel_at_period_end);
    if (cancel !== undefined) {
      sub.cancel_at_period_end = cancel === "true";
      sub.cancel_at = cancel === "true" ? subscriptionItem(sub).current_period_end : null;
      sub.canceled_at = cancel === "true" ? now() : null;
    }
    const newPrice = text(field(item(p.items, 0), "price"));
    if (newPrice) {
      const price = priceOf(newPrice);
      if (!price.recurring) throw new SimError(400, `The price ${newPrice} is not recurring`, "items[0][price]");
      subscriptionItem(sub).price = price;
    }
    if (p.metadata) sub.metadata = { ...(sub.metadata as object), ...stringMap(p.metadata) };
    await emit("customer.subscription.updated", sub);
    return sub;
  }

  async function renew(sub: StripeObject, succeed: boolean): Promise<StripeObject> {
    const subItem = subscriptionItem(sub);
    const interval = ((subItem.price as StripeObject).recurring as { interval: "month" | "year" }).interval;
    if (succeed) {
      subItem.current_period_start = subItem.current_period_end;
      subItem.current_period_end = addInterval(Number(subItem.current_period_end), interval);
      sub.status = "active";
      const { invoice } = invoiceFor(sub, "subscription_cycle", true, false);
      await emit("invoice.paid", invoice);
      await emit("customer.subscription.updated", sub);
      return invoice;
    }
    sub.status = "past_due";
    const { invoice } = invoiceFor(sub, "subscription_cycle", false, false);
    await emit("invoice.payment_failed", invoice);
    await emit("customer.subscription.updated", sub);
    return invoice;
  }

  async function refund(p: Record<string, FormValue>): Promise<StripeObject> {
    const piId = text(p.payment_intent);
    const chargeId = text(p.charge) ?? (piId ? String(paymentIntents.get(piId)?.latest_charge ?? "") : undefined);
    const charge = chargeId ? charges.get(chargeId) : undefined;
    if (!charge)
      throw new SimError(
        400,
        `No such payment_intent: '${piId ?? chargeId ?? ""}'`,
        piId ? "payment_intent" : "charge",
        "resource_missing",
      );
    const left = Number(charge.amount) - Number(charge.amount_refunded);
    const amount = text(p.amount) ? Number(text(p.amount)) : left;
    if (!Number.isInteger(amount) || amount <= 0) throw new SimError(400, "Invalid positive integer", "amount");
    if (amount > left)
      throw new SimError(
        400,
        `Refund amount ($${(amount / 100).toFixed(2)}) is greater than unrefunded amount on charge ($${(left / 100).toFixed(2)})`,
        "amount",
        "amount_too_large",
      );
    const created: StripeObject = {
      id: newId("re"),
      object: "refund",
      amount,
      charge: charge.id,
      payment_intent: charge.payment_intent,
      currency: charge.currency,
      status: "succeeded",
      created: now(),
      metadata: stringMap(p.metadata),
    };
    charge.amount_refunded = Number(charge.amount_refunded) + amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    (charge.refunds as { data: StripeObject[] }).data.unshift(created);
    await emit("refund.created", created);
    await emit("charge.refunded", charge);
    return created;
  }

  /** A PaymentIntent confirmed at once with a saved card (off-session); the customer's card behaviour decides. */
  async function offSessionPayment(p: Record<string, FormValue>): Promise<StripeObject> {
    const customer = customers.get(text(p.customer) ?? "");
    if (!customer) throw new SimError(400, `No such customer: '${text(p.customer) ?? ""}'`, "customer", "resource_missing");
    const pm = text(p.payment_method);
    const saved = (customer.invoice_settings as { default_payment_method: string | null }).default_payment_method;
    if (!pm || pm !== saved) throw new SimError(400, `No such PaymentMethod: '${pm ?? ""}'`, "payment_method", "resource_missing");
    const amount = Number(text(p.amount));
    if (!Number.isInteger(amount) || amount <= 0) throw new SimError(400, "Invalid positive integer", "amount");
    const currency = text(p.currency) ?? "usd";
    const behaviour = String(customer.sim_card ?? "ok");
    if (behaviour !== "ok") {
      const failed: StripeObject = {
        id: newId("pi"),
        object: "payment_intent",
        amount,
        currency,
        customer: customer.id,
        metadata: stringMap(p.metadata),
        status: "requires_payment_method",
        created: now(),
        last_payment_error: {
          code: behaviour === "authenticate" ? "authentication_required" : "card_declined",
          message: behaviour === "authenticate" ? "This payment requires authentication." : "Your card was declined.",
        },
      };
      paymentIntents.set(failed.id, failed);
      await emit("payment_intent.payment_failed", failed);
      const error = failed.last_payment_error as { code: string; message: string };
      throw new SimError(402, error.message, "payment_method", error.code, failed);
    }
    const { pi, charge } = pay(amount, currency, customer.id, stringMap(p.metadata), text(p.description) ?? "Off-session payment");
    pi.payment_method = pm;
    await emit("payment_intent.succeeded", pi);
    await emit("charge.succeeded", charge);
    return pi;
  }

  async function dispute(p: Record<string, FormValue>): Promise<StripeObject> {
    const pi = paymentIntents.get(text(p.payment_intent) ?? "");
    const charge = pi ? charges.get(String(pi.latest_charge)) : undefined;
    if (!pi || !charge) throw new SimError(400, "No such payment_intent", "payment_intent", "resource_missing");
    const status = text(p.status) ?? "needs_response";
    const existing = (charge.dispute as StripeObject | undefined) ?? null;
    const object: StripeObject = existing ?? {
      id: newId("dp"),
      object: "dispute",
      amount: text(p.amount) ? Number(text(p.amount)) : Number(charge.amount),
      charge: charge.id,
      payment_intent: pi.id,
      currency: charge.currency,
      reason: text(p.reason) ?? "fraudulent",
      created: now(),
      status,
    };
    object.status = status;
    charge.dispute = object;
    charge.disputed = true;
    if (!existing) await emit("charge.dispute.created", object);
    else if (status === "won" || status === "lost") await emit("charge.dispute.closed", object);
    else await emit("charge.dispute.updated", object);
    return object;
  }

  function checkoutPage(session: StripeObject): string {
    const line = (session.line_items as Array<{ price: string }>)[0];
    const match = findVariant(line.price);
    const what =
      match?.kind === "bonus"
        ? `${match.bonusPackage.credits} bonus credits`
        : match
          ? `${match.tier.name} plan (${match.billingPeriod})`
          : line.price;
    const amount = (Number(session.amount_total) / 100).toFixed(2);
    const done = session.status !== "open";
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Stripe simulator · Checkout</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}button{font-size:1rem;padding:.6rem 1.2rem}</style></head>
<body><p><strong>Stripe simulator</strong> — no real payment is made.</p><h1>Pay $${escapeHtml(amount)}</h1><p>${escapeHtml(what)}</p>
${session.subscription_data && (session.subscription_data as { trial_period_days?: number }).trial_period_days ? `<p>Free trial: ${escapeHtml((session.subscription_data as { trial_period_days: number }).trial_period_days)} days</p>` : ""}
<p>Email: ${escapeHtml(session.customer_email ?? (session.customer ? customers.get(String(session.customer))?.email : "") ?? "")}</p>
${done ? `<p>This checkout is ${escapeHtml(session.status)}.</p>` : `<form method="post" action="/checkout/${escapeHtml(session.id)}/pay"><button type="submit">Pay $${escapeHtml(amount)}</button></form>`}
${session.cancel_url ? `<p><a href="${escapeHtml(session.cancel_url)}">Cancel and return</a></p>` : ""}</body></html>`;
  }

  function portalPage(portal: StripeObject): string {
    const subs = [...subscriptions.values()].filter((s) => s.customer === portal.customer);
    const rows = subs
      .map((s) => {
        const price = subscriptionItem(s).price as StripeObject;
        const match = findVariant(String(price.id));
        const name = match?.kind === "plan" ? `${match.tier.name} plan (${match.billingPeriod})` : String(price.id);
        const action =
          s.status === "canceled"
            ? "ended"
            : s.cancel_at_period_end
              ? `<form method="post" action="/portal/${escapeHtml(portal.id)}/renew/${escapeHtml(s.id)}"><button>Renew plan</button></form>`
              : `<form method="post" action="/portal/${escapeHtml(portal.id)}/cancel/${escapeHtml(s.id)}"><button>Cancel plan</button></form>`;
        return `<li>${escapeHtml(name)} — ${escapeHtml(s.status)}${s.cancel_at_period_end ? " (cancels at period end)" : ""} ${action}</li>`;
      })
      .join("");
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Stripe simulator · Billing portal</title></head>
<body style="font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto"><p><strong>Stripe simulator</strong> — billing portal</p><ul>${rows || "<li>No subscriptions</li>"}</ul>
<p><a href="${escapeHtml(portal.return_url)}">Return</a></p></body></html>`;
  }

  async function api(method: string, path: string, p: Record<string, FormValue>): Promise<unknown> {
    const parts = path.split("/").filter(Boolean).slice(1); // after "v1"
    const [resource, id, sub] = parts;
    const one = <T>(map: Map<string, T>, key: string | undefined, name: string): T => {
      const found = key ? map.get(key) : undefined;
      if (!found) throw new SimError(404, `No such ${name}: '${key ?? ""}'`, "id", "resource_missing");
      return found;
    };
    if (resource === "customers") {
      if (method === "POST" && !id) return customerFor({ email: text(p.email), name: text(p.name), metadata: stringMap(p.metadata) });
      if (method === "GET" && id && sub === "payment_methods") {
        const customer = one(customers, id, "customer");
        const pm = (customer.invoice_settings as { default_payment_method: string | null }).default_payment_method;
        const cards = pm
          ? [
              {
                id: pm,
                object: "payment_method",
                type: "card",
                customer: id,
                card: { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2030 },
              },
            ]
          : [];
        return list(cards, p, `/v1/customers/${id}/payment_methods`);
      }
      if (method === "GET" && id) return one(customers, id, "customer");
    }
    if (resource === "payment_intents" && method === "POST" && !id) return offSessionPayment(p);
    if (resource === "checkout" && id === "sessions") {
      const sessionId = sub;
      if (method === "POST" && !sessionId) return publicSession(await createSession(p));
      if (method === "GET" && sessionId) return publicSession(one(sessions, sessionId, "checkout.session"));
      if (method === "GET") {
        const status = text(p.status);
        return list([...sessions.values()].filter((s) => !status || s.status === status).map(publicSession), p, "/v1/checkout/sessions");
      }
    }
    if (resource === "subscriptions") {
      if (method === "GET" && id) return one(subscriptions, id, "subscription");
      if (method === "GET") {
        const status = text(p.status) ?? "active";
        const all = [...subscriptions.values()].filter((s) => status === "all" || s.status === status);
        return list(all, p, "/v1/subscriptions");
      }
      if (method === "POST" && id) return updateSubscription(one(subscriptions, id, "subscription"), p);
      if (method === "DELETE" && id) {
        const s = one(subscriptions, id, "subscription");
        s.status = "canceled";
        s.canceled_at ??= now();
        s.ended_at = now();
        await emit("customer.subscription.deleted", s);
        return s;
      }
    }
    if (resource === "invoices") {
      if (method === "GET" && id) return one(invoices, id, "invoice");
      if (method === "GET") {
        const subId = text(p.subscription);
        const all = [...invoices.values()].filter(
          (i) => !subId || (i.parent as { subscription_details: { subscription: string } }).subscription_details.subscription === subId,
        );
        return list(all, p, "/v1/invoices");
      }
    }
    if (resource === "invoice_payments" && method === "GET") {
      const pi = text(field(field(p, "payment"), "payment_intent"));
      const invoiceId = text(p.invoice);
      const all = [...invoicePayments.values()].filter(
        (l) => (!pi || (l.payment as { payment_intent: string }).payment_intent === pi) && (!invoiceId || l.invoice === invoiceId),
      );
      return list(all, p, "/v1/invoice_payments");
    }
    if (resource === "payment_intents" && method === "GET" && id) return one(paymentIntents, id, "payment_intent");
    if (resource === "charges" && method === "GET" && id) return one(charges, id, "charge");
    if (resource === "refunds" && method === "POST" && !id) return refund(p);
    if (resource === "billing_portal" && id === "sessions" && method === "POST") {
      const customer = one(customers, text(p.customer), "customer");
      const portal: StripeObject = {
        id: newId("bps"),
        object: "billing_portal.session",
        customer: customer.id,
        return_url: text(p.return_url) ?? null,
        created: now(),
        url: "",
      };
      portal.url = `${base}/portal/${portal.id}`;
      portals.set(portal.id, portal);
      return portal;
    }
    if (resource === "events" && method === "GET") {
      if (id) return one(new Map(events.map((e) => [e.event.id, e.event])), id, "event");
      return list(
        [...events].reverse().map((e) => e.event),
        p,
        "/v1/events",
      );
    }
    throw new SimError(404, `Unrecognized request URL (${method}: ${path}). The Stripe simulator serves only the calls this app makes.`);
  }

  async function control(path: string, p: Record<string, FormValue>): Promise<unknown> {
    const [, , resource, id, action] = path.split("/");
    if (resource === "subscriptions" && (action === "renew" || action === "fail")) {
      const s = subscriptions.get(id);
      if (!s) throw new SimError(404, `No such subscription: '${id}'`);
      return renew(s, action === "renew");
    }
    if (resource === "disputes") return dispute(p);
    if (resource === "customers" && action === "card") {
      const customer = customers.get(id);
      if (!customer) throw new SimError(404, `No such customer: '${id}'`);
      const behaviour = text(p.behaviour) ?? "ok";
      if (!["ok", "decline", "authenticate"].includes(behaviour)) throw new SimError(400, "behaviour: ok, decline or authenticate");
      customer.sim_card = behaviour;
      return { id, behaviour };
    }
    throw new SimError(404, `Unknown simulator control ${path}`);
  }

  const readBody = async (req: IncomingMessage): Promise<string> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  };

  const send = (res: ServerResponse, status: number, body: unknown, type = "application/json") => {
    res.writeHead(status, { "content-type": type, "request-id": newId("req") });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", base);
    const method = req.method ?? "GET";
    const raw = await readBody(req);
    const params = parseFormParams(method === "GET" || method === "DELETE" ? url.search.slice(1) : raw);
    try {
      if (url.pathname.startsWith("/v1/")) {
        if (req.headers.authorization !== `Bearer ${options.apiKey}`)
          throw new SimError(401, "Invalid API Key provided: the Stripe simulator accepts only the key it was started with");
        const key = method === "POST" ? req.headers["idempotency-key"] : undefined;
        const cacheKey = typeof key === "string" ? `${url.pathname}:${key}` : null;
        const cached = cacheKey ? idempotent.get(cacheKey) : undefined;
        if (cached) return send(res, cached.status, cached.body);
        const body = await api(method, url.pathname, params);
        if (cacheKey) idempotent.set(cacheKey, { status: 200, body });
        return send(res, 200, body);
      }
      if (url.pathname.startsWith("/_simulator/") && method === "POST") return send(res, 200, await control(url.pathname, params));
      const [, page, id, action, subId] = url.pathname.split("/");
      if (page === "checkout" && id) {
        const session = sessions.get(id);
        if (!session) throw new SimError(404, "No such checkout session");
        if (method === "POST" && action === "pay") {
          await completeSession(session);
          res.writeHead(303, { location: String(session.success_url).replace("{CHECKOUT_SESSION_ID}", session.id) });
          return void res.end();
        }
        return send(res, 200, checkoutPage(session), "text/html; charset=utf-8");
      }
      if ((page === "invoices" || page === "receipts") && id) {
        const paid = page === "invoices" ? invoices.get(id) : paymentIntents.get(id);
        if (!paid) throw new SimError(404, "No such document");
        const charge = page === "receipts" ? charges.get(String(paid.latest_charge)) : undefined;
        const amount = Number(page === "invoices" ? paid.amount_paid : paid.amount) / 100;
        const refunded = charge ? Number(charge.amount_refunded) / 100 : 0;
        return send(
          res,
          200,
          `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Stripe simulator · ${page === "invoices" ? "Invoice" : "Receipt"}</title></head>
<body style="font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto"><p><strong>Stripe simulator</strong></p><h1>${page === "invoices" ? "Invoice" : "Receipt"} ${escapeHtml(paid.id)}</h1>
<p>Paid $${amount.toFixed(2)} ${escapeHtml(String(paid.currency).toUpperCase())}</p>${refunded ? `<p>Refunded $${refunded.toFixed(2)}</p>` : ""}</body></html>`,
          "text/html; charset=utf-8",
        );
      }
      if (page === "portal" && id) {
        const portal = portals.get(id);
        if (!portal) throw new SimError(404, "No such billing portal session");
        if (method === "POST" && (action === "cancel" || action === "renew") && subId) {
          const s = subscriptions.get(subId);
          if (!s || s.customer !== portal.customer) throw new SimError(404, "No such subscription");
          await updateSubscription(s, { cancel_at_period_end: action === "cancel" ? "true" : "false" });
          res.writeHead(303, { location: `/portal/${portal.id}` });
          return void res.end();
        }
        return send(res, 200, portalPage(portal), "text/html; charset=utf-8");
      }
      throw new SimError(404, `Not found: ${url.pathname}`);
    } catch (error) {
      if (error instanceof SimError) {
        return send(res, error.status, {
          error: {
            type: error.status === 402 ? "card_error" : "invalid_request_error",
            message: error.message,
            param: error.param,
            code: error.code,
            ...(error.paymentIntent
              ? { payment_intent: error.paymentIntent, decline_code: error.code === "card_declined" ? "generic_decline" : undefined }
              : {}),
          },
        });
      }
      return send(res, 500, { error: { type: "api_error", message: (error as Error).message } });
    }
  }

  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  base = `http://${options.host ?? "127.0.0.1"}:${port}`;
  return {
    url: base,
    port,
    events,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
