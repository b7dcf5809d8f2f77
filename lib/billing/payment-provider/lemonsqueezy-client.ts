import { env } from "@/lib/config/env";
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
} from "./provider-types";

/**
 * Lemon Squeezy REST API (JSON:API over fetch): the only file that talks to Lemon Squeezy.
 * LEMONSQUEEZY_API_URL overrides the base URL (tests run it against a local stub).
 */
export const DEFAULT_LEMONSQUEEZY_API_URL = "https://api.lemonsqueezy.com/v1";
const TIMEOUT_MS = 15_000;

interface JsonApiResource<A> {
  type: string;
  id: string;
  attributes: A;
}
interface JsonApiDocument<A> {
  data: JsonApiResource<A>;
}
interface JsonApiList<A> {
  data: JsonApiResource<A>[];
  meta?: { page?: { currentPage?: number; lastPage?: number } };
}

export class LemonSqueezyClient implements PaymentProvider {
  readonly name = "lemonsqueezy" as const;

  constructor(
    private readonly apiKey: string,
    private readonly storeId: string,
    private readonly baseUrl: string = DEFAULT_LEMONSQUEEZY_API_URL,
  ) {}

  private async request<T>(method: string, path: string, body?: unknown): Promise<{ status: number; json: T | null }> {
    const url = `${this.baseUrl.replace(/\/+$/, "")}${path}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          accept: "application/vnd.api+json",
          "content-type": "application/vnd.api+json",
          authorization: `Bearer ${this.apiKey}`,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new AppError("upstream_failed", "Payment provider is unreachable", { cause: error });
    }
    const text = await response.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (response.status === 404) return { status: 404, json: null };
    if (!response.ok) {
      const detail = (json as { errors?: { detail?: string; title?: string }[] } | null)?.errors?.[0];
      throw new AppError(
        "upstream_failed",
        `Payment provider error ${response.status}: ${detail?.detail ?? detail?.title ?? "request failed"}`,
      );
    }
    return { status: response.status, json: json as T };
  }

  async createCheckout(req: CheckoutRequest): Promise<{ url: string }> {
    const custom: Record<string, string> = { ...(req.custom ?? {}) };
    if (req.userId) custom.user_id = req.userId;
    const checkoutData: Record<string, unknown> = { custom };
    if (req.email) checkoutData.email = req.email;
    if (req.name) checkoutData.name = req.name;
    if (req.discountCode) checkoutData.discount_code = req.discountCode;
    const { json } = await this.request<JsonApiDocument<{ url: string }>>("POST", "/checkouts", {
      data: {
        type: "checkouts",
        attributes: {
          checkout_data: checkoutData,
          product_options: { redirect_url: req.redirectUrl, enabled_variants: [Number(req.variantId) || req.variantId] },
          checkout_options: { embed: false },
        },
        relationships: {
          store: { data: { type: "stores", id: String(this.storeId) } },
          variant: { data: { type: "variants", id: String(req.variantId) } },
        },
      },
    });
    const url = json?.data?.attributes?.url;
    if (!url) throw new AppError("upstream_failed", "Payment provider returned no checkout URL");
    return { url };
  }

  async getSubscription(id: string): Promise<ProviderSubscription | null> {
    const { json } = await this.request<JsonApiDocument<SubscriptionAttributes>>("GET", `/subscriptions/${encodeURIComponent(id)}`);
    return json ? toSubscription(json.data) : null;
  }

  private async patchSubscription(id: string, attributes: Record<string, unknown>): Promise<ProviderSubscription> {
    const { json } = await this.request<JsonApiDocument<SubscriptionAttributes>>("PATCH", `/subscriptions/${encodeURIComponent(id)}`, {
      data: { type: "subscriptions", id: String(id), attributes },
    });
    if (!json) throw new AppError("not_found", "Subscription not found at the payment provider");
    return toSubscription(json.data);
  }

  changeSubscriptionVariant(id: string, variantId: string): Promise<ProviderSubscription> {
    return this.patchSubscription(id, { variant_id: Number(variantId) || variantId });
  }

  async cancelSubscription(id: string): Promise<ProviderSubscription> {
    const { json } = await this.request<JsonApiDocument<SubscriptionAttributes>>("DELETE", `/subscriptions/${encodeURIComponent(id)}`);
    if (!json) throw new AppError("not_found", "Subscription not found at the payment provider");
    return toSubscription(json.data);
  }

  resumeSubscription(id: string): Promise<ProviderSubscription> {
    return this.patchSubscription(id, { cancelled: false });
  }

  async customerPortalUrl(id: string): Promise<string> {
    // The subscription's urls.customer_portal is a pre-signed address valid for 24 hours.
    const subscription = await this.getSubscription(id);
    const url = subscription?.attributes.urls?.customer_portal;
    if (!url) throw new AppError("not_found", "No customer portal is available for this subscription");
    return url;
  }

  async *listSubscriptions(): AsyncIterable<ProviderSubscription> {
    for await (const item of this.paginate<SubscriptionAttributes>("/subscriptions")) yield toSubscription(item);
  }

  async *listOrders(): AsyncIterable<ProviderOrder> {
    for await (const item of this.paginate<OrderAttributes>("/orders")) yield { id: String(item.id), attributes: item.attributes };
  }

  async *listSubscriptionInvoices(subscriptionId: string): AsyncIterable<ProviderInvoice> {
    const filter = `&filter[subscription_id]=${encodeURIComponent(subscriptionId)}`;
    for await (const item of this.paginate<InvoiceAttributes>("/subscription-invoices", filter))
      yield { id: String(item.id), attributes: item.attributes };
  }

  private async *paginate<A>(path: string, extraQuery = ""): AsyncIterable<JsonApiResource<A>> {
    for (let page = 1; page <= 10_000; page++) {
      const query = `?filter[store_id]=${encodeURIComponent(this.storeId)}${extraQuery}&page[number]=${page}&page[size]=100`;
      const { json } = await this.request<JsonApiList<A>>("GET", `${path}${query}`);
      const items = json?.data ?? [];
      for (const item of items) yield item;
      const lastPage = json?.meta?.page?.lastPage ?? page;
      if (items.length === 0 || page >= lastPage) return;
    }
  }
}

function toSubscription(resource: JsonApiResource<SubscriptionAttributes>): ProviderSubscription {
  return { id: String(resource.id), attributes: resource.attributes };
}

/** The configured Lemon Squeezy client, or null when LEMONSQUEEZY_API_KEY is unset. */
export function lemonSqueezyFromEnv(): LemonSqueezyClient | null {
  const e = env();
  if (!e.LEMONSQUEEZY_API_KEY || !e.LEMONSQUEEZY_STORE_ID) return null;
  return new LemonSqueezyClient(e.LEMONSQUEEZY_API_KEY, e.LEMONSQUEEZY_STORE_ID, e.LEMONSQUEEZY_API_URL ?? DEFAULT_LEMONSQUEEZY_API_URL);
}
