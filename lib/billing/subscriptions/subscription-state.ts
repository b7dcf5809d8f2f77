import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from "../payment-provider/provider-types";

/**
 * The subscription state machine, pure (docs/API-NOTES.md "Payments" has the table). Lemon Squeezy
 * sends the whole subscription with every subscription_* event, so the newest snapshot (by the
 * provider's updated_at) is authoritative and an older one never overwrites it; invoice events
 * (subscription_payment_*) only move the failed-payment marker, with their own time guard.
 */
export const SNAPSHOT_EVENTS = [
  "subscription_created",
  "subscription_updated",
  "subscription_cancelled",
  "subscription_resumed",
  "subscription_expired",
  "subscription_paused",
  "subscription_unpaused",
] as const;
export const INVOICE_EVENTS = ["subscription_payment_failed", "subscription_payment_success", "subscription_payment_recovered"] as const;
export const PAYMENT_EVENTS = [...SNAPSHOT_EVENTS, ...INVOICE_EVENTS, "order_created"] as const;

/** Refunds (not in SPEC §6): they change no subscription state; they take back what a payment bought. */
export const REFUND_EVENTS = ["order_refunded", "subscription_payment_refunded"] as const;
/** Disputes (Stripe's charge.dispute.*; Lemon Squeezy sends none): they freeze, give back or take back a payment's credits. */
export const DISPUTE_EVENTS = ["payment_dispute_opened", "payment_dispute_closed"] as const;
/** Every payment event the webhook handles: SPEC §6's eleven, the refunds and the disputes. */
export const HANDLED_PAYMENT_EVENTS = [...PAYMENT_EVENTS, ...REFUND_EVENTS, ...DISPUTE_EVENTS] as const;

export type SnapshotEvent = (typeof SNAPSHOT_EVENTS)[number];
export type RefundEvent = (typeof REFUND_EVENTS)[number];
export type HandledPaymentEvent = (typeof HANDLED_PAYMENT_EVENTS)[number];

export function isHandledPaymentEvent(name: string): name is HandledPaymentEvent {
  return (HANDLED_PAYMENT_EVENTS as readonly string[]).includes(name);
}
/** Events whose resource is a subscription invoice (it names its subscription in subscription_id). */
export function isInvoiceResource(name: string): boolean {
  return isInvoiceEvent(name) || name === "subscription_payment_refunded";
}
export type InvoiceEvent = (typeof INVOICE_EVENTS)[number];
export type PaymentEventName = (typeof PAYMENT_EVENTS)[number];

export function isPaymentEvent(name: string): name is PaymentEventName {
  return (PAYMENT_EVENTS as readonly string[]).includes(name);
}
export function isSnapshotEvent(name: string): name is SnapshotEvent {
  return (SNAPSHOT_EVENTS as readonly string[]).includes(name);
}
export function isInvoiceEvent(name: string): name is InvoiceEvent {
  return (INVOICE_EVENTS as readonly string[]).includes(name);
}
export function isSubscriptionStatus(value: unknown): value is SubscriptionStatus {
  return typeof value === "string" && (SUBSCRIPTION_STATUSES as readonly string[]).includes(value);
}

export interface SubscriptionState {
  /** "none": no record yet. */
  status: SubscriptionStatus | "none";
  /** Provider updated_at of the newest snapshot applied. */
  updatedAt: Date | null;
  /** Time of the newest failed payment not yet followed by a successful one (user.needsAction). */
  paymentFailedAt: Date | null;
  /** Time of the newest successful or recovered payment seen. */
  paymentOkAt: Date | null;
}

export interface StateEvent {
  name: PaymentEventName;
  /** The event's provider updated_at. */
  at: Date;
  /** The snapshot's status (subscription_* events). */
  status?: SubscriptionStatus;
}

/** Status a snapshot event implies when its payload carries none (the provider always sends one). */
const IMPLIED: Partial<Record<SnapshotEvent, SubscriptionStatus>> = {
  subscription_created: "active",
  subscription_cancelled: "cancelled",
  subscription_resumed: "active",
  subscription_expired: "expired",
  subscription_paused: "paused",
  subscription_unpaused: "active",
};

export const EMPTY_STATE: SubscriptionState = { status: "none", updatedAt: null, paymentFailedAt: null, paymentOkAt: null };

/** The next state and whether the event changed anything (false: stale or without effect). */
export function nextSubscriptionState(state: SubscriptionState, event: StateEvent): { state: SubscriptionState; applied: boolean } {
  if (isSnapshotEvent(event.name)) {
    if (state.updatedAt && event.at < state.updatedAt) return { state, applied: false };
    const status = event.status ?? IMPLIED[event.name] ?? (state.status === "none" ? "active" : state.status);
    return { state: { ...state, status, updatedAt: event.at }, applied: true };
  }
  if (event.name === "subscription_payment_failed") {
    if (state.paymentOkAt && state.paymentOkAt >= event.at) return { state, applied: false };
    if (state.paymentFailedAt && state.paymentFailedAt >= event.at) return { state, applied: false };
    return { state: { ...state, paymentFailedAt: event.at }, applied: true };
  }
  if (event.name === "subscription_payment_success" || event.name === "subscription_payment_recovered") {
    const paymentOkAt = state.paymentOkAt && state.paymentOkAt > event.at ? state.paymentOkAt : event.at;
    const clears = state.paymentFailedAt !== null && state.paymentFailedAt <= event.at;
    if (event.name === "subscription_payment_recovered" && !clears) return { state: { ...state, paymentOkAt }, applied: false };
    return { state: { ...state, paymentOkAt, paymentFailedAt: clears ? null : state.paymentFailedAt }, applied: true };
  }
  return { state, applied: false };
}

/** Statuses in which the subscription still gives its tier (cancelled: until ends_at). */
export function givesAccess(status: string, endsAt: Date | null, now = new Date()): boolean {
  if (status === "expired") return false;
  if (status === "cancelled") return !endsAt || endsAt > now;
  return isSubscriptionStatus(status);
}
