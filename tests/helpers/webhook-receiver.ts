import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/** One delivery a receiver got. */
export interface Received {
  headers: Record<string, string>;
  body: string;
  json: { id: string; type: string; data: Record<string, unknown> };
  status: number;
}

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** The next `times` deliveries answer `status` (a receiver that is down). */
  failNext(times: number, status?: number): void;
  /** Every answer from now on comes after `ms` (a slow receiver; 0: at once). */
  answerAfter(ms: number): void;
  /** Runs before each answer is sent (a test's clock moving on while a delivery is in flight). */
  beforeAnswer(hook: ((received: Received) => Promise<void>) | null): void;
  /** Deliveries being answered right now, and the most ever at once. */
  inFlight(): { now: number; max: number };
  close(): Promise<void>;
}

/** A local HTTP receiver of outbound webhooks (127.0.0.1, a free port): records every delivery and answers 200 unless told to fail. */
export async function startWebhookReceiver(path = "/hooks"): Promise<WebhookReceiver> {
  const received: Received[] = [];
  let failing = 0;
  let failStatus = 500;
  let delayMs = 0;
  let hook: ((received: Received) => Promise<void>) | null = null;
  const load = { now: 0, max: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    load.max = Math.max(load.max, ++load.now);
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const status = failing > 0 ? failStatus : 200;
      if (failing > 0) failing--;
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const entry = { headers, body, json: JSON.parse(body), status };
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      if (hook) await hook(entry);
      received.push(entry);
      load.now--;
      res.writeHead(status, { "content-type": "text/plain" }).end(status === 200 ? "ok" : "down");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    failNext(times, status = 500) {
      failing = times;
      failStatus = status;
    },
    answerAfter(ms) {
      delayMs = ms;
    },
    beforeAnswer(h) {
      hook = h;
    },
    inFlight: () => ({ ...load }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A receiver's own check, written from the Standard Webhooks specification (not the svix package):
 * HMAC-SHA256 with the secret's base64 bytes (after `whsec_`) over `${webhook-id}.${webhook-timestamp}.${body}`,
 * compared in constant time with any `v1,` signature of the header; the timestamp within 5 minutes.
 */
export function verifyStandardWebhook(
  secret: string,
  headers: Record<string, string>,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signatures = headers["webhook-signature"];
  if (!id || !timestamp || !signatures) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.split(" ").some((s) => {
    const [version, value] = s.split(",");
    if (version !== "v1" || !value) return false;
    const given = Buffer.from(value, "base64");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
