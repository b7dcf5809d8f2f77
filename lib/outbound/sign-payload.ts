import { randomBytes } from "node:crypto";
import { Webhook } from "svix";

/** A new signing secret in the Standard Webhooks form: whsec_ and 32 random bytes in base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/**
 * The Standard Webhooks headers of a delivery (signed by the svix package): webhook-id (the event's
 * id: a receiver dedupes on it), webhook-timestamp (seconds) and webhook-signature, `v1,<base64>`
 * of HMAC-SHA256 over `${id}.${timestamp}.${body}` with the secret's bytes. During a rotation's overlap
 * the previous secret signs too: both signatures, space-separated (a receiver accepts either).
 */
export function signedHeaders(
  secret: string,
  id: string,
  body: string,
  at: Date = new Date(),
  previousSecret: string | null = null,
): Record<string, string> {
  const signatures = [secret, ...(previousSecret ? [previousSecret] : [])].map((s) => new Webhook(s).sign(id, at, body));
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signatures.join(" "),
  };
}
