import { env } from "@/lib/config/env";

/**
 * The JWT secret. Production requires NEXTAUTH_SECRET (checked at start-up); development and tests
 * fall back to a fixed, clearly insecure value so `npm run dev` needs no setup.
 */
export const DEVELOPMENT_AUTH_SECRET = "insecure-development-secret-do-not-use-in-production";

export function authSecret(): string {
  const e = env();
  return e.NEXTAUTH_SECRET ?? DEVELOPMENT_AUTH_SECRET;
}
