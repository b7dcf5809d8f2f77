import { NextResponse, type NextRequest } from "next/server";
import { getToken } from "next-auth/jwt";
import { CONSOLE_ACCESS_HEADER, consoleAccessToken, isConsoleAccess } from "@/lib/auth/console-access";
import { isOperatorSession } from "@/lib/auth/operator-session";
import { getSessionUser } from "@/lib/auth/session";
import { authSecret } from "@/lib/config/auth-secret";
import { securityHeaders } from "@/lib/config/security-headers";

/**
 * The Content-Security-Policy of pages, request ids, and the sign-in gate for dashboard pages. API
 * routes do their own authentication in the route wrapper; nothing here grants access.
 * `x-middleware-subrequest` (the header behind CVE-2025-29927) is stripped from the request so it can
 * never skip this gate downstream. The other security headers (HSTS included) come from
 * next.config.ts, for every response; the ones set here too cover responses this proxy answers itself.
 */
function withSecurityHeaders(response: NextResponse): NextResponse {
  for (const { key, value } of securityHeaders()) response.headers.set(key, value);
  return response;
}

const REQUEST_ID = /^[\w.:-]{1,64}$/;

/**
 * The Content-Security-Policy of every HTML page. Scripts run only with this request's nonce (Next.js
 * reads it from the request's own CSP header and puts it on every script it renders; 'strict-dynamic'
 * lets those load their chunks). Styles allow inline attributes (React style props); images and
 * media allow data:/blob: (generated images, recordings). `unsafe-eval` only for `next dev`'s refresh.
 */
function contentSecurityPolicy(nonce: string): string {
  const dev = process.env.NODE_ENV === "development";
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? " ws: wss:" : ""}`,
    "frame-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "object-src 'none'",
    `form-action ${formTargets()}`,
  ].join("; ");
}

/**
 * Where a form on our pages may lead: this site, and the sign-in and checkout providers a form post
 * redirects to (browsers apply form-action to those redirects too).
 */
function formTargets(): string {
  const targets = ["'self'"];
  if (process.env.AUTH_GITHUB_ID) targets.push("https://github.com");
  if (process.env.AUTH_GOOGLE_ID) targets.push("https://accounts.google.com");
  try {
    if (process.env.AUTH_OIDC_ISSUER) targets.push(new URL(process.env.AUTH_OIDC_ISSUER).origin);
  } catch {
    // an invalid issuer stops the server at start-up (lib/config/env.ts)
  }
  if (process.env.LEMONSQUEEZY_API_KEY) targets.push("https://*.lemonsqueezy.com");
  return targets.join(" ");
}

/** Where the operator console's pages live (app/%5Fconsole): reachable only through /admin, for operators. */
const CONSOLE_PATH = "/_console";

/** Whether the request's session may be an operator's (ADMIN_EMAILS and a vouched email); no database here. */
async function mayBeOperator(req: NextRequest): Promise<boolean> {
  const user = await getSessionUser(req).catch(() => null);
  return Boolean(user && isOperatorSession(user));
}

function decodesCleanly(pathname: string): boolean {
  if (!pathname.includes("%")) return true;
  try {
    for (const segment of pathname.split("/")) decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

export async function proxy(req: NextRequest) {
  const secure = req.nextUrl.protocol === "https:";
  const headers = new Headers(req.headers);
  headers.delete("x-middleware-subrequest");
  // One request id for the whole request: route handlers log with it and answer it.
  const given = req.headers.get("x-request-id");
  const requestId = given && REQUEST_ID.test(given) ? given : crypto.randomUUID();
  headers.set("x-request-id", requestId);

  // A path with a malformed %-escape (%ff, %E0%A4%A, overlong %c0%af) would fail Next's own decoding
  // of the route's parameters with a plain-text 500: for the API it names nothing, a JSON 404.
  const isApi = req.nextUrl.pathname.startsWith("/api/") || req.nextUrl.pathname.startsWith("/v1/");
  if (isApi && !decodesCleanly(req.nextUrl.pathname)) {
    const message = "Not found: the path is not validly encoded";
    // The /v1 API answers in OpenAI's error shape (lib/http/openai-error.ts).
    const body = req.nextUrl.pathname.startsWith("/v1/")
      ? { error: { message, type: "invalid_request_error", code: "unknown_url", param: null } }
      : { error: message, code: "not_found" };
    const notFound = withSecurityHeaders(NextResponse.json(body, { status: 404 }));
    notFound.headers.set("cache-control", "no-store");
    notFound.headers.set("x-request-id", requestId);
    return notFound;
  }

  if (req.nextUrl.pathname.startsWith("/dashboard")) {
    const token = await getToken({ req, secret: authSecret(), secureCookie: secure }).catch(() => null);
    if (!token?.sub) {
      const signIn = new URL("/signin", req.url);
      signIn.searchParams.set("callbackUrl", req.nextUrl.pathname + req.nextUrl.search);
      const redirect = withSecurityHeaders(NextResponse.redirect(signIn));
      redirect.headers.set("x-request-id", requestId);
      return redirect;
    }
  }
  const isPage = !isApi;
  const csp = isPage ? contentSecurityPolicy(btoa(crypto.randomUUID())) : null;
  if (csp) headers.set("content-security-policy", csp);
  // The operator console does not exist for anyone but an operator. No route serves /admin: an
  // operator's request is rewritten to the console's pages (app/%5Fconsole) with the header that lets
  // them render (lib/auth/console-access.ts); anyone else's goes on as it came and meets the answer
  // of any unknown path, headers and router state included (no rewrite happened to show). A console
  // access header a client sent is dropped, unless it is the proxy's own (a rewrite Next forwarded
  // over HTTP comes back through here). The console's pages check the operator again, with the
  // account's state (a locked operator).
  const path = req.nextUrl.pathname;
  if (headers.has(CONSOLE_ACCESS_HEADER) && !isConsoleAccess(headers.get(CONSOLE_ACCESS_HEADER))) headers.delete(CONSOLE_ACCESS_HEADER);
  let rewrite: URL | null = null;
  if ((path === "/admin" || path.startsWith("/admin/")) && (await mayBeOperator(req))) {
    headers.set(CONSOLE_ACCESS_HEADER, consoleAccessToken());
    // On the request's own URL (its origin is the server's: next.config.ts skipProxyUrlNormalize).
    rewrite = req.nextUrl.clone();
    rewrite.pathname = CONSOLE_PATH + path.slice("/admin".length);
  }
  const response = withSecurityHeaders(
    rewrite ? NextResponse.rewrite(rewrite, { request: { headers } }) : NextResponse.next({ request: { headers } }),
  );
  response.headers.set("x-request-id", requestId);
  if (csp) response.headers.set("content-security-policy", csp);
  return response;
}

// API requests reach the proxy only when their path holds a %-escape (a malformed one gets the JSON 404
// above) and they carry no body. A body would be copied in memory and cut at 10 MB by Next for a path
// the proxy matches (uploads, audio, image-carrying chat requests, the /v1 API). The rest of the API
// needs nothing from here: handlers authenticate, assign request ids and bound their bodies themselves
// (lib/http/handler.ts), and next.config.ts sets the security headers on every response. Running the
// proxy on every body-less API request cost each one about 0.4 ms of server CPU for nothing
// (docs/BENCHMARKS.md "Gateway speed round two").
// (Next reads this object without running the file: literals only.)
export const config = {
  matcher: [
    "/((?!api/|v1/|_next/static|_next/image|favicon.ico).*)",
    {
      source: "/api/:path(.*%.*)",
      missing: [
        { type: "header", key: "content-length" },
        { type: "header", key: "transfer-encoding" },
      ],
    },
    {
      source: "/v1/:path(.*%.*)",
      missing: [
        { type: "header", key: "content-length" },
        { type: "header", key: "transfer-encoding" },
      ],
    },
  ],
};
