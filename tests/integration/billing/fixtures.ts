import { createHmac } from "node:crypto";
import { POST as webhook } from "@/app/api/webhooks/payment/route";
import { call, type CallResult } from "@/tests/helpers/http";

/** Builders of Lemon Squeezy-shaped payment events and a signed delivery to the real route. */
export const TEST_SECRET = "test-payment-webhook-secret";

export function sign(raw: string, secret = TEST_SECRET): string {
  return createHmac("sha256", secret).update(raw).digest("hex");
}

export interface SubscriptionFields {
  id: string;
  userId?: string | null;
  email?: string | null;
  variantId?: string;
  status?: string;
  updatedAt: string | Date;
  createdAt?: string | Date;
  renewsAt?: string | Date | null;
  endsAt?: string | Date | null;
  trialEndsAt?: string | Date | null;
  portal?: string | null;
}

const iso = (v: string | Date | null | undefined) => (v === null || v === undefined ? null : v instanceof Date ? v.toISOString() : v);

export function subscriptionEvent(name: string, f: SubscriptionFields) {
  return {
    meta: { event_name: name, custom_data: f.userId ? { user_id: f.userId } : {}, test_mode: true },
    data: {
      type: "subscriptions",
      id: f.id,
      attributes: {
        store_id: 1,
        customer_id: 99,
        order_id: 1,
        product_id: 10,
        variant_id: f.variantId ?? "local-basic-monthly",
        user_email: f.email ?? null,
        status: f.status ?? "active",
        cancelled: f.status === "cancelled",
        trial_ends_at: iso(f.trialEndsAt),
        renews_at: iso(f.renewsAt) ?? "2030-01-01T00:00:00.000Z",
        ends_at: iso(f.endsAt),
        created_at: iso(f.createdAt) ?? "2026-01-01T00:00:00.000Z",
        updated_at: iso(f.updatedAt),
        urls: { customer_portal: f.portal ?? null, update_payment_method: null },
        test_mode: true,
      },
    },
  };
}

export function invoiceEvent(
  name: string,
  f: {
    id: string;
    subscriptionId: string;
    userId?: string | null;
    email?: string | null;
    billingReason?: string;
    status?: string;
    updatedAt: string | Date;
  },
) {
  return {
    meta: { event_name: name, custom_data: f.userId ? { user_id: f.userId } : {} },
    data: {
      type: "subscription-invoices",
      id: f.id,
      attributes: {
        subscription_id: f.subscriptionId,
        user_email: f.email ?? null,
        billing_reason: f.billingReason ?? "renewal",
        status: f.status ?? (name === "subscription_payment_failed" ? "pending" : "paid"),
        total: 999,
        created_at: iso(f.updatedAt),
        updated_at: iso(f.updatedAt),
      },
    },
  };
}

export function orderEvent(f: {
  id: string;
  userId?: string | null;
  email?: string | null;
  variantId: string;
  status?: string;
  total?: number;
  extra?: Record<string, unknown>;
}) {
  return {
    meta: { event_name: "order_created", custom_data: f.userId ? { user_id: f.userId } : {}, ...(f.extra ?? {}) },
    data: {
      type: "orders",
      id: f.id,
      attributes: {
        identifier: `ident-${f.id}`,
        user_email: f.email ?? null,
        status: f.status ?? "paid",
        total: f.total ?? 499,
        first_order_item: { variant_id: f.variantId, product_id: 5, price: f.total ?? 499 },
        created_at: "2026-11-01T00:00:00.000Z",
        updated_at: "2026-11-01T00:00:00.000Z",
      },
    },
  };
}

/** Delivers an event to POST /api/webhooks/payment, signed unless told otherwise. */
export async function deliver(
  event: unknown,
  options: { secret?: string; signature?: string | null; raw?: string } = {},
): Promise<CallResult> {
  const raw = options.raw ?? JSON.stringify(event);
  const headers: Record<string, string> = { "content-type": "application/json" };
  const signature = options.signature === undefined ? sign(raw, options.secret) : options.signature;
  if (signature !== null) headers["x-signature"] = signature;
  return call(webhook, { method: "POST", path: "/api/webhooks/payment", rawBody: raw, headers });
}
