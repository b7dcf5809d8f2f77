import { createHmac, timingSafeEqual } from "node:crypto";
import { AppError } from "@/lib/errors";

/** Hex HMAC-SHA256 of the raw body: Lemon Squeezy's `X-Signature`. */
export function signPaymentBody(rawBody: string, secret: string): string {
  return createHmac("sha256", secret).update(rawBody, "utf8").digest("hex");
}

/**
 * Verifies `X-Signature` on the raw body before anything parses it. Missing, malformed (not 64 hex
 * characters) or wrong signatures, and an unset secret, are all `invalid_signature` (401).
 */
export function verifyPaymentSignature(rawBody: string, signature: string | null, secret: string | undefined): void {
  if (!signature) throw new AppError("invalid_signature", "Signature verification failed: X-Signature header is missing");
  if (!secret) throw new AppError("invalid_signature", "Signature verification failed: webhook secret is not configured");
  const given = signature.trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(given)) throw new AppError("invalid_signature", "Signature verification failed: malformed X-Signature");
  const expected = Buffer.from(signPaymentBody(rawBody, secret), "hex");
  if (!timingSafeEqual(Buffer.from(given, "hex"), expected)) throw new AppError("invalid_signature", "Signature verification failed");
}
