import type { Subscription } from "@/lib/generated/prisma/client";
import type { ProviderSubscription, SubscriptionAttributes } from "./provider-types";

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/**
 * The subscription in the provider's shape, built from our record (+ a patch): what the simulator
 * answers and delivers, and what local expiry applies through the same snapshot path.
 */
export function snapshotFromRecord(
  row: Subscription,
  email: string | null,
  patch: Partial<SubscriptionAttributes> = {},
  now = new Date(),
): ProviderSubscription {
  const attributes: SubscriptionAttributes = {
    store_id: "simulator",
    customer_id: row.providerCustomerId,
    product_id: row.productId,
    variant_id: row.variantId,
    user_email: email,
    status: row.status,
    cancelled: row.status === "cancelled",
    pause: row.status === "paused" ? { mode: "void", resumes_at: null } : null,
    trial_ends_at: iso(row.trialEndsAt),
    renews_at: iso(row.currentPeriodEnd),
    ends_at: iso(row.endsAt),
    created_at: iso(row.createdAt),
    updated_at: now.toISOString(),
    urls: { customer_portal: null, update_payment_method: null },
    test_mode: true,
    ...patch,
  };
  return { id: row.providerSubscriptionId, attributes };
}
