import { createHmac, timingSafeEqual } from "node:crypto";
import { authSecret } from "@/lib/config/auth-secret";
import { env } from "@/lib/config/env";

/**
 * Expiring HMAC tokens for local-storage file addresses: `/api/files/<id>/content?expires=<unix s>&token=<hex>`.
 * Key: FILE_URL_SECRET, or a key derived from the auth secret (never the auth secret itself).
 */
function signingKey(): string {
  const e = env();
  return e.FILE_URL_SECRET ?? createHmac("sha256", authSecret()).update("file-url-signing-key/v1").digest("hex");
}

function tokenFor(fileId: string, expires: number): string {
  return createHmac("sha256", signingKey()).update(`file:${fileId}:${expires}`).digest("hex");
}

export function signLocalFileUrl(baseUrl: string, fileId: string, ttlSeconds: number, now = Date.now()): string {
  const expires = Math.floor(now / 1000) + ttlSeconds;
  const url = new URL(`/api/files/${encodeURIComponent(fileId)}/content`, baseUrl);
  url.searchParams.set("expires", String(expires));
  url.searchParams.set("token", tokenFor(fileId, expires));
  return url.toString();
}

export type TokenCheck = "valid" | "expired" | "invalid";

/** Checks a token in constant time; a token past its expiry is `expired` even when its signature is right. */
export function checkLocalFileToken(fileId: string, expires: string | null, token: string | null, now = Date.now()): TokenCheck {
  if (!expires || !token || !/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(token)) return "invalid";
  const expected = Buffer.from(tokenFor(fileId, Number(expires)), "hex");
  if (!timingSafeEqual(expected, Buffer.from(token, "hex"))) return "invalid";
  return Number(expires) * 1000 < now ? "expired" : "valid";
}
