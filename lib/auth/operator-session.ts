import type { SessionUser } from "@/lib/auth/session";
import { env } from "@/lib/config/env";

/**
 * Whether a session may act as an operator: its email is in ADMIN_EMAILS (case-insensitive) and
 * verified. An OAuth/OIDC sign-in's email is vouched for by its provider; the development email
 * sign-in takes any address typed in, so it counts only outside production.
 */
export function isOperatorSession(user: SessionUser): boolean {
  const e = env();
  if (!user.email || !e.ADMIN_EMAILS.includes(user.email.trim().toLowerCase())) return false;
  return user.emailVerified === true || (user.authMethod === "dev" && !e.isProduction);
}
