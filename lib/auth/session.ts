import { getToken } from "next-auth/jwt";
import { z } from "zod";
import { authSecret } from "@/lib/config/auth-secret";

export interface SessionUser {
  id: string;
  email: string | null;
  /** The sign-in method of this session ("dev", "github", "google", "oidc"); null for older tokens. */
  authMethod?: string | null;
  /** Whether the sign-in provider vouched for the email (never for the dev sign-in). */
  emailVerified?: boolean;
  /** When this session signed in (epoch milliseconds): a revocation after it ends the session. */
  signedInAt?: number | null;
  /** This session's id (the token's `sid`, set at sign-in): signing out revokes it (lib/auth/revoke-session.ts). */
  sessionId?: string | null;
}

/**
 * The claims a session token must carry to be a session: anything else (a `sub` that is not a
 * string, say) is no session, answered 401 like an expired one, never a 500.
 */
const sessionClaims = z.object({
  sub: z.string().min(1).max(200),
  email: z.string().max(320).nullish(),
  authMethod: z.string().max(50).nullish(),
  emailVerified: z.boolean().nullish(),
  signedInAt: z.number().int().nonnegative().nullish(),
  sid: z.string().max(100).nullish(),
  iat: z.number().nullish(),
  exp: z.number().nullish(),
});

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

/** The session token a request carries: the cookie (either name, chunked or whole) or a bearer token. */
function rawSessionToken(req: Request, cookies: Map<string, string>): string | null {
  for (const name of COOKIE_NAMES) {
    const whole = cookies.get(name);
    if (whole) return whole;
    const chunks = [...cookies.keys()]
      .filter((k) => k.startsWith(`${name}.`) && /^\d+$/.test(k.slice(name.length + 1)))
      .sort((a, b) => Number(a.slice(name.length + 1)) - Number(b.slice(name.length + 1)));
    if (chunks.length) return chunks.map((k) => cookies.get(k)).join("");
  }
  const auth = req.headers.get("authorization");
  return auth?.startsWith("Bearer ") ? auth.slice("Bearer ".length).trim() || null : null;
}

/**
 * Decoded sessions by token: a session JWT cannot change, so decoding it (key derivation + JWE
 * decryption, ~0.3 ms) is done once per token and process, and remembered until the token expires (at
 * most 5 minutes, at most MAX_DECODED tokens). Whether its user still exists is checked per request by
 * the route wrapper, not here.
 */
const DECODED_TTL_MS = 5 * 60_000;
const MAX_DECODED = 10_000;
const decoded = new Map<string, { user: SessionUser; secret: string; until: number }>();

/**
 * The signed-in user of a plain Request: the next-auth JWT from its session cookie (either cookie
 * name; chunked cookies included) or from `Authorization: Bearer <session token>` for API clients.
 * Null when absent, expired or not verifiable.
 */
export async function getSessionUser(req: Request): Promise<SessionUser | null> {
  const cookies = parseCookies(req.headers.get("cookie"));
  const secret = authSecret();
  const raw = rawSessionToken(req, cookies);
  if (!raw) return null;
  const now = Date.now();
  const hit = decoded.get(raw);
  if (hit && hit.until > now && hit.secret === secret) return hit.user;
  const user = await decodeSessionUser(req, cookies, secret);
  if (user) {
    if (decoded.size >= MAX_DECODED) decoded.delete(decoded.keys().next().value as string);
    decoded.set(raw, { user: user.user, secret, until: Math.min(now + DECODED_TTL_MS, user.expiresAt) });
    return user.user;
  }
  return null;
}

async function decodeSessionUser(
  req: Request,
  cookies: Map<string, string>,
  secret: string,
): Promise<{ user: SessionUser; expiresAt: number } | null> {
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
      if (!token) continue;
      const claims = sessionClaims.safeParse(token);
      if (!claims.success) return null;
      const c = claims.data;
      return {
        user: {
          id: c.sub,
          email: c.email ?? null,
          authMethod: c.authMethod ?? null,
          emailVerified: c.emailVerified === true,
          signedInAt: c.signedInAt ?? (typeof c.iat === "number" ? Math.floor(c.iat) * 1000 : null),
          sessionId: c.sid ?? null,
        },
        expiresAt: typeof c.exp === "number" ? c.exp * 1000 : Date.now() + DECODED_TTL_MS,
      };
    } catch {
      return null;
    }
  }
  return null;
}
