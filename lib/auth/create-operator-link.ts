import { createHmac, randomBytes } from "node:crypto";
import { authSecret } from "@/lib/config/auth-secret";
import { env } from "@/lib/config/env";
import { normalizeEmail } from "@/lib/email/normalize-email";
import { AppError } from "@/lib/errors";

/**
 * An operator's first way in, with no mail provider and no OAuth app: `npm run admin:sign-in-link --
 * you@example.com` (scripts/admin-sign-in-link.ts) prints a sign-in link for an ADMIN_EMAILS address,
 * as self-hosted products do. Whoever can run that command on the server holds NEXTAUTH_SECRET, which
 * signs the link, so minting needs no database (it works while the server holds the embedded one).
 * The link works once, for 15 minutes, only for an address still in ADMIN_EMAILS when it is spent
 * (consume-operator-link.ts), through next-auth's `operator-link` provider.
 */
export const OPERATOR_LINK_TTL_MS = 15 * 60_000;
export const OPERATOR_TOKEN_PREFIX = "op.";

/** The signature of a link's payload (only the server's secret makes it). */
export const signOperatorPayload = (payload: string) =>
  createHmac("sha256", authSecret()).update(`operator-link.${payload}`).digest("base64url");

export const isOperatorAddress = (email: string) => env().ADMIN_EMAILS.includes(email.trim().toLowerCase());

/** The link for `email` on the site at `baseUrl` (everything in the fragment: no log or proxy sees the token). */
export function createOperatorLink(email: string, baseUrl: string, now = Date.now()): string {
  const address = normalizeEmail(email);
  if (!isOperatorAddress(address))
    throw new AppError("forbidden", `${address} is not in ADMIN_EMAILS: only an operator's address gets a sign-in link this way`);
  const payload = Buffer.from(
    JSON.stringify({ e: address, x: now + OPERATOR_LINK_TTL_MS, n: randomBytes(16).toString("base64url") }),
  ).toString("base64url");
  const link = new URL("/signin/email", `${baseUrl.replace(/\/+$/, "")}/`);
  link.hash = new URLSearchParams({
    email: address,
    token: `${OPERATOR_TOKEN_PREFIX}${payload}.${signOperatorPayload(payload)}`,
    callbackUrl: "/admin",
  }).toString();
  return link.toString();
}
