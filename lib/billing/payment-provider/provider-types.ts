/**
 * Lemon Squeezy's resource shapes (JSON:API `attributes`), shared by the real client, the local
 * simulator, webhook payloads and reconciliation. Only the fields we use are typed; the rest pass through.
 */
export const SUBSCRIPTION_STATUSES = ["on_trial", "active", "paused", "past_due", "unpaid", "cancelled", "expired"] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export interface SubscriptionAttributes {
  store_id?: number | string | null;
  customer_id?: number | string | null;
  order_id?: number | string | null;
  product_id?: number | string | null;
  variant_id: number | string;
  product_name?: string | null;
  variant_name?: string | null;
  user_name?: string | null;
  user_email?: string | null;
  status: string;
  cancelled?: boolean;
  pause?: { mode?: string; resumes_at?: string | null } | null;
  trial_ends_at?: string | null;
  renews_at?: string | null;
  ends_at?: string | null;
  created_at?: string | null;
  updated_at: string;
  urls?: { customer_portal?: string | null; update_payment_method?: string | null; [k: string]: unknown } | null;
  test_mode?: boolean;
  [k: string]: unknown;
}

export interface ProviderSubscription {
  id: string;
  attributes: SubscriptionAttributes;
}

/** `subscription-invoices` (subscription_payment_success / _failed / _recovered). */
export interface InvoiceAttributes {
  store_id?: number | string | null;
  subscription_id: number | string;
  customer_id?: number | string | null;
  user_name?: string | null;
  user_email?: string | null;
  billing_reason?: "initial" | "renewal" | "updated" | string | null;
  status?: string | null;
  total?: number | null;
  currency?: string | null;
  created_at?: string | null;
  updated_at?: string | null;
  [k: string]: unknown;
}

export interface ProviderInvoice {
  id: string;
  attributes: InvoiceAttributes;
}

/** `orders` (order_created). */
export interface OrderAttributes {
  store_id?: number | string | null;
  customer_id?: number | string | null;
  identifier?: string | null;
  order_number?: number | null;
  user_name?: string | null;
  user_email?: string | null;
  status?: string | null;
  total?: number | null;
  currency?: string | null;
  first_order_item?: { variant_id: number | string; product_id?: number | string; price?: number; [k: string]: unknown } | null;
  created_at?: string | null;
  updated_at?: string | null;
  [k: string]: unknown;
}

export interface ProviderOrder {
  id: string;
  attributes: OrderAttributes;
}

export interface CheckoutRequest {
  variantId: string;
  /** Our user id, sent as custom_data.user_id (absent in the registration-first flow). */
  userId?: string | null;
  email?: string | null;
  name?: string | null;
  /** Where the buyer lands after paying (absolute URL). */
  redirectUrl: string;
  /** Where "cancel" on the simulator page goes (absolute URL); Lemon Squeezy has no such option. */
  cancelUrl?: string | null;
  discountCode?: string | null;
  /** Extra custom data (kind: "plan" | "bonus"). */
  custom?: Record<string, string>;
  /** The account's customer at the provider, when one exists (Stripe: its saved cards and portal stay one customer). */
  customerId?: string | null;
  /** Trial days for a plan (Stripe takes them per checkout; Lemon Squeezy from the variant's own settings). */
  trialDays?: number;
}

export type PaymentProviderName = "lemonsqueezy" | "stripe" | "simulator";

/** The payment provider: Lemon Squeezy over its REST API, Stripe through its package, or the local checkout simulator. */
export interface PaymentProvider {
  readonly name: PaymentProviderName;
  createCheckout(request: CheckoutRequest): Promise<{ url: string }>;
  getSubscription(id: string): Promise<ProviderSubscription | null>;
  changeSubscriptionVariant(id: string, variantId: string): Promise<ProviderSubscription>;
  cancelSubscription(id: string): Promise<ProviderSubscription>;
  resumeSubscription(id: string): Promise<ProviderSubscription>;
  /** Customer portal address, valid 24 hours. */
  customerPortalUrl(id: string): Promise<string>;
  /** Every subscription of the store (reconciliation). */
  listSubscriptions(): AsyncIterable<ProviderSubscription>;
  /** Every paid order of the store (reconciliation of bonus purchases). */
  listOrders(): AsyncIterable<ProviderOrder>;
  /** The invoices of one subscription (reconciliation of missed renewal payments). */
  listSubscriptionInvoices(subscriptionId: string): AsyncIterable<ProviderInvoice>;
}
