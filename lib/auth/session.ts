import { getToken } from "next-auth/jwt";
import { authSecret } from "@/lib/config/auth-secret";

export interface SessionUser {
  id: string;
  email: string | null;
  /** The sign-in method of this session ("dev", "github", "google", "oidc"); null for older tokens. */
  authMethod?: string | null;
  /** Whether the sign-in provider vouched for the email (never for the dev sign-in). */
  emailVerified?: boolean;
}

const COOKIE_NAMES = ["__Secure-next-auth.session-token", "next-auth.session-token"];

function parseCookies(header: string | null): Map<string, string> {
  const cookies = new Map<string, string>();
  if (!header) return cookies;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index < 0) continue;
    const name = part.slice(0, index).trim();
    const value = part.slice(index + 1).trim();
    try {
      cookies.set(name, decodeURIComponent(value));
    } catch {
      cookies.set(name, value);
    }
  }
  return cookies;
}

/**
 * The signed-in user of a plain Request: the next-auth JWT from its session cookie (either cookie
 * name; chunked cookies included) or from `Authorization: Bearer <session token>` for API clients.
 * Null when absent, expired or not verifiable.
 */
export async function getSessionUser(req: Request): Promise<SessionUser | null> {
  const cookies = parseCookies(req.headers.get("cookie"));
  const secret = authSecret();
  for (const cookieName of COOKIE_NAMES) {
    const hasCookie = [...cookies.keys()].some((k) => k.startsWith(cookieName));
    if (!hasCookie && cookieName !== COOKIE_NAMES[1]) continue;
    try {
      const token = await getToken({
        req: { headers: req.headers, cookies } as never,
        secret,
        cookieName,
        secureCookie: cookieName.startsWith("__Secure-"),
      });
      if (token?.sub) {
        return {
          id: token.sub,
          email: (token.email as string | undefined) ?? null,
          authMethod: typeof token.authMethod === "string" ? token.authMethod : null,
          emailVerified: token.emailVerified === true,
        };
      }
    } catch {
      return null;
    }
  }
  return null;
}
