import { Webhook, WebhookVerificationError } from "svix";
import { AppError } from "@/lib/errors";

export const SVIX_HEADERS = ["svix-id", "svix-timestamp", "svix-signature"] as const;

export interface VerifiedSvixDelivery {
  id: string;
  payload: unknown;
}

/**
 * Verifies a Standard Webhooks / svix delivery on the raw body before anything parses it:
 * missing headers are 400 (`bad_request`), a bad or stale (5 min) signature or an unset secret is 401.
 */
export function verifySvixDelivery(rawBody: string, headers: Headers, secret: string | undefined): VerifiedSvixDelivery {
  const missing = SVIX_HEADERS.filter((h) => !headers.get(h));
  if (missing.length > 0)
    throw new AppError("bad_request", `Missing signature headers: ${missing.join(", ")}`, { reason: "signature_missing" });
  if (!secret) throw new AppError("invalid_signature", "Signature verification failed: webhook secret is not configured");
  const values = Object.fromEntries(SVIX_HEADERS.map((h) => [h, headers.get(h) as string]));
  try {
    new Webhook(secret).verify(rawBody, values);
  } catch (error) {
    if (error instanceof WebhookVerificationError) throw new AppError("invalid_signature", "Signature verification failed");
    // A malformed secret is a configuration problem, but must not leak: still a plain 401 to the sender.
    throw new AppError("invalid_signature", "Signature verification failed", { cause: error });
  }
  // Parsed only once the signature matched: a signed body that is not JSON is bad input.
  try {
    return { id: values["svix-id"], payload: JSON.parse(rawBody) as unknown };
  } catch {
    throw new AppError("bad_request", "Invalid payload: body is not valid JSON");
  }
}
