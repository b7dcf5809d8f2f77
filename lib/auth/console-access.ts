import { createHmac, timingSafeEqual } from "node:crypto";
import { authSecret } from "@/lib/config/auth-secret";

/**
 * The request header by which the proxy tells the console's pages (app/%5Fconsole) that it rewrote an
 * operator's /admin request to them: its value is derived from the auth secret, so no client can send
 * it (a request carrying a wrong one has it removed), and every instance and runtime agrees on it. A
 * request that reaches the console's path any other way is answered as not found.
 */
export const CONSOLE_ACCESS_HEADER = "x-console-access";

export function consoleAccessToken(): string {
  return createHmac("sha256", authSecret()).update("operator-console-rewrite").digest("base64url");
}

export function isConsoleAccess(value: string | null | undefined): boolean {
  if (!value) return false;
  const expected = Buffer.from(consoleAccessToken());
  const given = Buffer.from(value);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
