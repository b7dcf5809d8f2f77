import { env } from "./env";

/**
 * The app's public addresses, in one place: its base URL (for links, checkout returns and file
 * addresses), the URL a request was addressed to, and the only way a caller-supplied destination
 * becomes a redirect (same origin, or nothing). Edge-safe.
 */
const HOST = /^(?:[\w.-]+|\[[\da-f:]+\])(?::\d{1,5})?$/i;

/** The app's public base URL: NEXTAUTH_URL when set (without a trailing slash), else the origin of the request being served. */
export function appBaseUrl(requestUrl?: string): string {
  const configured = env().NEXTAUTH_URL;
  if (configured) return configured.replace(/\/+$/, "");
  if (requestUrl) return new URL(requestUrl).origin;
  return "http://localhost:3000";
}

/**
 * The base of links this site mails (sign-in links): NEXTAUTH_URL, never a request header, so a
 * request cannot make a real mailer send links to another host. Only local development may go
 * without it: its links then name the address it listens on (http://localhost:PORT). The
 * configuration check requires NEXTAUTH_URL whenever email sign-in is on anywhere else.
 */
export function mailedLinkBase(): string {
  const configured = env().NEXTAUTH_URL;
  if (configured) return configured.replace(/\/+$/, "");
  return `http://localhost:${process.env.PORT || 3000}`;
}

/**
 * The request's URL as the client addressed it. `next dev` and `next start` build `req.url` from the
 * hostname they were started with ("localhost"), so a browser at 127.0.0.1 or a LAN address would be
 * sent to another origin after the checkout simulator (and arrive without its session cookie).
 * Outside production the Host header says where the client is; in production set NEXTAUTH_URL, which
 * appBaseUrl prefers.
 */
export function publicRequestUrl(req: Request): string {
  const url = new URL(req.url);
  if (env().isProduction) return url.toString();
  const host = req.headers.get("host");
  if (host && HOST.test(host)) url.host = host;
  return url.toString();
}

/**
 * A caller-supplied destination resolved against the app, as an absolute URL: relative paths and
 * same-origin URLs pass; anything else (another origin, `//evil`, `/\evil`, a path with a tab or
 * newline that browsers strip, `javascript:`) is null. Never an open redirect.
 */
export function sameOriginUrl(candidate: string | null | undefined, base: string): string | null {
  if (!candidate || /[\u0000-\u001f\u007f\\]/.test(candidate.replace(/%(09|0a|0d|5c)/gi, (m) => decodeURIComponent(m)))) return null;
  try {
    const resolved = new URL(candidate, `${base}/`);
    return resolved.origin === new URL(base).origin ? resolved.toString() : null;
  } catch {
    return null;
  }
}

/**
 * The same as a path for this origin ("/dashboard?x=1"), or `fallback`: what a sign-in page may send
 * the browser to. The path is the one the URL parser resolved (dot segments, %2e and backslashes
 * as browsers read them), and it never starts with `//` or `/\`, which a browser would take for
 * another host (`/.//evil.example/x`, `/dashboard/..//evil.example`, `/%2e//evil.example`).
 */
export function safeRedirectPath(candidate: string | null | undefined, fallback = "/dashboard"): string {
  const base = "http://app.invalid";
  const resolved = sameOriginUrl(candidate, base);
  if (!resolved) return fallback;
  const url = new URL(resolved);
  if (/^\/[\/\\]/.test(url.pathname)) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}
