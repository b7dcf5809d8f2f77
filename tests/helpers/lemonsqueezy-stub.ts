import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local Lemon Squeezy API (JSON:API, https://docs.lemonsqueezy.com/api) for tests: checkouts,
 * subscriptions (read, update variant, resume, cancel via DELETE, paginated list) and orders, with
 * bearer auth, `application/vnd.api+json`, JSON:API errors and programmable failures. Listens on
 * 127.0.0.1 on an ephemeral port; close() in afterAll.
 */
export interface StubSubscription {
  id: string;
  attributes: Record<string, unknown> & { status: string; variant_id: number | string; updated_at: string };
}

export interface StubRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];

  body: any;
}

export interface LemonSqueezyStub {
  /** Base URL for LEMONSQUEEZY_API_URL (ends in /v1). */
  url: string;
  apiKey: string;
  storeId: string;
  requests: StubRequest[];
  subscriptions: Map<string, StubSubscription>;
  orders: Map<string, { id: string; attributes: Record<string, unknown> }>;
  invoices: Map<string, { id: string; attributes: Record<string, unknown> }>;
  /** The next `count` requests answer `status` with a JSON:API error. */
  failNext(status: number, count?: number): void;
  addSubscription(
    id: string,
    attributes: Partial<StubSubscription["attributes"]> & { variant_id: number | string; user_email: string },
  ): StubSubscription;
  addOrder(id: string, attributes: Record<string, unknown>): void;
  /** A subscription invoice (GET /subscription-invoices, filterable by subscription_id). */
  addInvoice(id: string, attributes: Record<string, unknown> & { subscription_id: string | number }): void;
  close(): Promise<void>;
}

/** A PRICING_CONFIG with numeric variant ids for every paid plan and package, as a real store has. */
export const LEMONSQUEEZY_TEST_PRICING = {
  tiers: {
    basic: {
      variants: { monthly: "1001", yearly: "1002" },
      bonusPackages: [
        { credits: 500, price: 4.99, variantId: "2001" },
        { credits: 1200, price: 9.99, variantId: "2002" },
      ],
    },
    pro: {
      variants: { monthly: "1101", yearly: "1102" },
      bonusPackages: [
        { credits: 2000, price: 14.99, variantId: "2101" },
        { credits: 5000, price: 29.99, variantId: "2102" },
      ],
    },
    enterprise: {
      variants: { monthly: "1201", yearly: "1202" },
      bonusPackages: [
        { credits: 10000, price: 49.99, variantId: "2201" },
        { credits: 25000, price: 99.99, variantId: "2202" },
      ],
    },
  },
};

const JSON_API = "application/vnd.api+json";

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": JSON_API });
  res.end(body === undefined ? "" : JSON.stringify(body));
}

function error(res: ServerResponse, status: number, title: string, detail?: string) {
  send(res, status, { jsonapi: { version: "1.0" }, errors: [{ status: String(status), title, detail: detail ?? title }] });
}

function later(previous: unknown): string {
  const base = typeof previous === "string" ? Date.parse(previous) : 0;
  // Lemon Squeezy writes microseconds: 2026-11-01T00:00:00.000000Z
  return new Date(Math.max(Date.now(), base + 1000)).toISOString().replace(/Z$/, "000Z");
}

export async function startLemonSqueezyStub(
  options: { apiKey?: string; storeId?: string; pageSize?: number } = {},
): Promise<LemonSqueezyStub> {
  const apiKey = options.apiKey ?? "ls_test_key";
  const storeId = options.storeId ?? "4242";
  const requests: StubRequest[] = [];
  const subscriptions = new Map<string, StubSubscription>();
  const orders = new Map<string, { id: string; attributes: Record<string, unknown> }>();
  const invoices = new Map<string, { id: string; attributes: Record<string, unknown> }>();
  let failures: { status: number; count: number } | null = null;
  let base = "";

  const resource = (type: string, item: { id: string; attributes: Record<string, unknown> }) => ({
    type,
    id: item.id,
    attributes: item.attributes,
    relationships: {},
    links: { self: `${base}/${type}/${item.id}` },
  });

  const portal = (id: string) =>
    `https://stub.lemonsqueezy.test/billing/${id}?expires=${Math.floor(Date.now() / 1000) + 86_400}&signature=${randomUUID().replace(/-/g, "")}`;

  function list(res: ServerResponse, url: URL, type: string, items: { id: string; attributes: Record<string, unknown> }[]) {
    const store = url.searchParams.get("filter[store_id]");
    const subscription = url.searchParams.get("filter[subscription_id]");
    const filtered = items.filter(
      (i) =>
        (!store || String(i.attributes.store_id) === store) && (!subscription || String(i.attributes.subscription_id) === subscription),
    );
    const size = Math.min(Number(url.searchParams.get("page[size]") ?? 10), options.pageSize ?? 100);
    const page = Math.max(1, Number(url.searchParams.get("page[number]") ?? 1));
    const lastPage = Math.max(1, Math.ceil(filtered.length / size));
    const slice = filtered.slice((page - 1) * size, page * size);
    send(res, 200, {
      meta: {
        page: {
          currentPage: page,
          from: (page - 1) * size + 1,
          lastPage,
          perPage: size,
          to: (page - 1) * size + slice.length,
          total: filtered.length,
        },
      },
      jsonapi: { version: "1.0" },
      links: { first: `${base}/${type}?page[number]=1`, last: `${base}/${type}?page[number]=${lastPage}` },
      data: slice.map((i) => resource(type, i)),
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");

    let body: any = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      return error(res, 400, "Bad Request", "Body is not JSON");
    }
    const url = new URL(req.url ?? "/", "http://stub");
    requests.push({ method: req.method ?? "GET", path: url.pathname + url.search, headers: req.headers, body });

    if (failures && failures.count > 0) {
      failures.count--;
      return error(res, failures.status, "Stub failure", `Injected ${failures.status}`);
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) return error(res, 401, "Unauthenticated", "Unauthenticated.");
    if (!String(req.headers.accept ?? "").includes(JSON_API)) return error(res, 406, "Not Acceptable");
    if (text && !String(req.headers["content-type"] ?? "").includes(JSON_API)) return error(res, 415, "Unsupported Media Type");

    const path = url.pathname.replace(/^\/v1/, "");
    const subMatch = /^\/subscriptions\/([^/]+)$/.exec(path);

    if (req.method === "POST" && path === "/checkouts") {
      const data = body?.data;
      const store = data?.relationships?.store?.data;
      const variant = data?.relationships?.variant?.data;
      if (data?.type !== "checkouts" || store?.type !== "stores" || variant?.type !== "variants") {
        return error(res, 422, "Unprocessable Entity", "data.type, relationships.store and relationships.variant are required");
      }
      if (String(store.id) !== storeId) return error(res, 404, "Not Found", "Store not found");
      const id = randomUUID();
      const now = new Date().toISOString();
      return send(res, 201, {
        jsonapi: { version: "1.0" },
        data: resource("checkouts", {
          id,
          attributes: {
            store_id: Number(storeId),
            variant_id: Number(variant.id) || variant.id,
            custom_price: null,
            product_options: data.attributes?.product_options ?? {},
            checkout_options: data.attributes?.checkout_options ?? {},
            checkout_data: data.attributes?.checkout_data ?? {},
            expires_at: null,
            created_at: now,
            updated_at: now,
            test_mode: true,
            url: `https://stub.lemonsqueezy.test/checkout/custom/${id}?signature=${randomUUID().replace(/-/g, "")}`,
          },
        }),
      });
    }
    if (req.method === "GET" && path === "/subscriptions") return list(res, url, "subscriptions", [...subscriptions.values()]);
    if (req.method === "GET" && path === "/orders") return list(res, url, "orders", [...orders.values()]);
    if (req.method === "GET" && path === "/subscription-invoices") return list(res, url, "subscription-invoices", [...invoices.values()]);
    if (subMatch) {
      const sub = subscriptions.get(decodeURIComponent(subMatch[1]));
      if (!sub) return error(res, 404, "Not Found");
      if (req.method === "GET") {
        sub.attributes.urls = { ...(sub.attributes.urls as object), customer_portal: portal(sub.id) };
        return send(res, 200, { jsonapi: { version: "1.0" }, data: resource("subscriptions", sub) });
      }
      if (req.method === "PATCH") {
        const attrs = body?.data?.attributes ?? {};
        if (body?.data?.type !== "subscriptions" || String(body?.data?.id) !== sub.id)
          return error(res, 422, "Unprocessable Entity", "data.type and data.id must match");
        if (attrs.variant_id !== undefined) {
          sub.attributes.variant_id = attrs.variant_id;
        }
        if (attrs.cancelled === false) {
          if (sub.attributes.status === "expired")
            return error(res, 422, "Unprocessable Entity", "An expired subscription cannot be resumed");
          sub.attributes.cancelled = false;
          sub.attributes.ends_at = null;
          sub.attributes.status =
            sub.attributes.trial_ends_at && Date.parse(String(sub.attributes.trial_ends_at)) > Date.now() ? "on_trial" : "active";
        }
        sub.attributes.updated_at = later(sub.attributes.updated_at);
        return send(res, 200, { jsonapi: { version: "1.0" }, data: resource("subscriptions", sub) });
      }
      if (req.method === "DELETE") {
        sub.attributes.status = "cancelled";
        sub.attributes.cancelled = true;
        sub.attributes.ends_at = sub.attributes.renews_at ?? sub.attributes.trial_ends_at ?? new Date().toISOString();
        sub.attributes.updated_at = later(sub.attributes.updated_at);
        return send(res, 200, { jsonapi: { version: "1.0" }, data: resource("subscriptions", sub) });
      }
    }
    return error(res, 404, "Not Found");
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e) => error(res, 500, "Stub error", String(e)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}/v1`;

  return {
    url: base,
    apiKey,
    storeId,
    requests,
    subscriptions,
    orders,
    invoices,
    failNext(status, count = 1) {
      failures = { status, count };
    },
    addSubscription(id, attributes) {
      const now = new Date().toISOString();
      const sub: StubSubscription = {
        id,
        attributes: {
          store_id: Number(storeId),
          customer_id: 1001,
          order_id: 2001,
          product_id: 3001,
          product_name: "Plan",
          variant_name: "Default",
          user_name: "Buyer",
          status: "active",
          status_formatted: "Active",
          cancelled: false,
          pause: null,
          trial_ends_at: null,
          billing_anchor: 1,
          renews_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
          ends_at: null,
          created_at: now,
          updated_at: now,
          test_mode: true,
          urls: { update_payment_method: "https://stub.lemonsqueezy.test/update", customer_portal: null },
          ...attributes,
        },
      };
      subscriptions.set(id, sub);
      return sub;
    },
    addOrder(id, attributes) {
      orders.set(id, { id, attributes: { store_id: Number(storeId), status: "paid", ...attributes } });
    },
    addInvoice(id, attributes) {
      const now = new Date().toISOString();
      invoices.set(id, {
        id,
        attributes: {
          store_id: Number(storeId),
          billing_reason: "renewal",
          status: "paid",
          total: 999,
          created_at: now,
          updated_at: now,
          ...attributes,
        },
      });
    },
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
