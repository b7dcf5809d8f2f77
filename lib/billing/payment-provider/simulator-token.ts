import { createHmac, timingSafeEqual } from "node:crypto";
import { paymentWebhookSecret } from "./signing-secret";

/**
 * Signed, expiring tokens of the local checkout simulator (checkout ids and portal addresses):
 * base64url(JSON).base64url(HMAC-SHA256), keyed by the payment signing secret, so the simulator keeps
 * no state of its own and nobody can forge a checkout or another user's portal.
 */
function key(): string {
  const secret = paymentWebhookSecret();
  if (!secret) throw new Error("simulator tokens need a payment signing secret");
  return `simulator:${secret}`;
}

function mac(body: string): string {
  return createHmac("sha256", key()).update(body).digest("base64url");
}

export function signSimulatorToken(payload: Record<string, unknown>, ttlSeconds: number, now = Date.now()): string {
  const body = Buffer.from(JSON.stringify({ ...payload, exp: Math.floor(now / 1000) + ttlSeconds })).toString("base64url");
  return `${body}.${mac(body)}`;
}

/** The token's payload, or null when malformed, forged or expired. */
export function verifySimulatorToken<T extends Record<string, unknown>>(
  token: string | null | undefined,
  now = Date.now(),
): (T & { exp: number }) | null {
  if (!token || token.length > 4096) return null;
  const [body, signature, extra] = token.split(".");
  if (!body || !signature || extra !== undefined) return null;
  const expected = Buffer.from(mac(body));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as T & { exp: number };
    if (typeof payload.exp !== "number" || payload.exp * 1000 < now) return null;
    return payload;
  } catch {
    return null;
  }
}
