import { describe, expect, it } from "vitest";
import type { SubscriptionStatus } from "@/lib/billing/payment-provider/provider-types";
import {
  EMPTY_STATE,
  nextSubscriptionState,
  PAYMENT_EVENTS,
  type PaymentEventName,
  type SubscriptionState,
} from "@/lib/billing/subscriptions/subscription-state";

const T0 = new Date("2026-11-01T00:00:00Z");
const BEFORE = new Date("2026-10-01T00:00:00Z");
const AFTER = new Date("2026-12-01T00:00:00Z");

const state = (status: SubscriptionState["status"], extra: Partial<SubscriptionState> = {}): SubscriptionState => ({
  ...EMPTY_STATE,
  status,
  updatedAt: status === "none" ? null : T0,
  ...extra,
});

type Row = [
  label: string,
  from: SubscriptionState,
  event: PaymentEventName,
  at: Date,
  snapshot: SubscriptionStatus | undefined,
  to: Partial<SubscriptionState>,
  applied: boolean,
];

/** (state, event) → state: the state machine of docs/API-NOTES.md "Payments". */
const TABLE: Row[] = [
  ["created on nothing", state("none"), "subscription_created", T0, "active", { status: "active", updatedAt: T0 }, true],
  ["created on trial", state("none"), "subscription_created", T0, "on_trial", { status: "on_trial" }, true],
  ["created without status", state("none"), "subscription_created", T0, undefined, { status: "active" }, true],
  ["updated before created", state("none"), "subscription_updated", T0, "active", { status: "active" }, true],
  ["late created after updated", state("active"), "subscription_created", BEFORE, "on_trial", { status: "active", updatedAt: T0 }, false],
  ["updated: plan/status", state("active"), "subscription_updated", AFTER, "past_due", { status: "past_due", updatedAt: AFTER }, true],
  ["updated: same time applies again", state("active"), "subscription_updated", T0, "active", { status: "active" }, true],
  ["updated: older ignored", state("cancelled"), "subscription_updated", BEFORE, "active", { status: "cancelled" }, false],
  ["cancel active", state("active"), "subscription_cancelled", AFTER, "cancelled", { status: "cancelled" }, true],
  ["cancel trial", state("on_trial"), "subscription_cancelled", AFTER, "cancelled", { status: "cancelled" }, true],
  ["cancel without status", state("active"), "subscription_cancelled", AFTER, undefined, { status: "cancelled" }, true],
  ["resume cancelled", state("cancelled"), "subscription_resumed", AFTER, "active", { status: "active" }, true],
  ["resume cancelled trial", state("cancelled"), "subscription_resumed", AFTER, "on_trial", { status: "on_trial" }, true],
  ["resume: older ignored", state("cancelled"), "subscription_resumed", BEFORE, "active", { status: "cancelled" }, false],
  ["expire active", state("active"), "subscription_expired", AFTER, "expired", { status: "expired" }, true],
  ["expire cancelled", state("cancelled"), "subscription_expired", AFTER, "expired", { status: "expired" }, true],
  ["expire: older ignored", state("active"), "subscription_expired", BEFORE, "expired", { status: "active" }, false],
  ["pause", state("active"), "subscription_paused", AFTER, "paused", { status: "paused" }, true],
  ["unpause", state("paused"), "subscription_unpaused", AFTER, "active", { status: "active" }, true],
  ["unpause: older ignored", state("paused"), "subscription_unpaused", BEFORE, "active", { status: "paused" }, false],
  ["payment failed", state("active"), "subscription_payment_failed", AFTER, undefined, { status: "active", paymentFailedAt: AFTER }, true],
  [
    "payment failed again, newer",
    state("past_due", { paymentFailedAt: T0 }),
    "subscription_payment_failed",
    AFTER,
    undefined,
    { paymentFailedAt: AFTER },
    true,
  ],
  [
    "payment failed, older than recorded failure",
    state("past_due", { paymentFailedAt: AFTER }),
    "subscription_payment_failed",
    T0,
    undefined,
    { paymentFailedAt: AFTER },
    false,
  ],
  [
    "payment failed, older than a success",
    state("active", { paymentOkAt: AFTER }),
    "subscription_payment_failed",
    T0,
    undefined,
    { paymentFailedAt: null },
    false,
  ],
  [
    "payment success clears failure",
    state("past_due", { paymentFailedAt: T0 }),
    "subscription_payment_success",
    AFTER,
    undefined,
    { status: "past_due", paymentFailedAt: null, paymentOkAt: AFTER },
    true,
  ],
  [
    "payment success older than failure keeps it",
    state("past_due", { paymentFailedAt: AFTER }),
    "subscription_payment_success",
    T0,
    undefined,
    { paymentFailedAt: AFTER, paymentOkAt: T0 },
    true,
  ],
  [
    "payment success without failure",
    state("active"),
    "subscription_payment_success",
    AFTER,
    undefined,
    { paymentFailedAt: null, paymentOkAt: AFTER },
    true,
  ],
  [
    "recovered clears failure",
    state("past_due", { paymentFailedAt: T0 }),
    "subscription_payment_recovered",
    AFTER,
    undefined,
    { paymentFailedAt: null },
    true,
  ],
  [
    "recovered without failure: no effect",
    state("active"),
    "subscription_payment_recovered",
    AFTER,
    undefined,
    { paymentFailedAt: null, status: "active" },
    false,
  ],
  [
    "recovered older than failure: no effect",
    state("past_due", { paymentFailedAt: AFTER }),
    "subscription_payment_recovered",
    T0,
    undefined,
    { paymentFailedAt: AFTER },
    false,
  ],
  ["order on subscription: no effect", state("active"), "order_created", AFTER, undefined, { status: "active", updatedAt: T0 }, false],
];

describe("subscription state machine", () => {
  it.each(TABLE)("%s", (_label, from, event, at, snapshot, to, applied) => {
    const result = nextSubscriptionState(from, { name: event, at, status: snapshot });
    expect(result.applied).toBe(applied);
    expect(result.state).toMatchObject(to);
  });

  it("covers every one of the 11 event types", () => {
    expect(new Set(TABLE.map((r) => r[2]))).toEqual(new Set(PAYMENT_EVENTS));
    expect(PAYMENT_EVENTS).toHaveLength(11);
  });

  it("never lets an older snapshot overwrite a newer one, whatever the event", () => {
    for (const name of PAYMENT_EVENTS.filter((e) => e.startsWith("subscription_") && !e.includes("payment"))) {
      const from = state("active", { updatedAt: AFTER });
      const result = nextSubscriptionState(from, { name, at: T0, status: "expired" });
      expect(result).toEqual({ state: from, applied: false });
    }
  });
});
