import { env } from "@/lib/config/env";

const HOST = /^(?:[\w.-]+|\[[\da-f:]+\])(?::\d{1,5})?$/i;

/**
 * The request's URL as the client addressed it. `next dev` and `next start` build `req.url` from the
 * hostname they were started with ("localhost"), so a browser at 127.0.0.1 or a LAN address would be
 * redirected to another origin after the checkout simulator (and arrive without its session cookie).
 * Outside production the Host header says where the client is; in production set NEXTAUTH_URL, which
 * every caller prefers (lib/billing/app-url.ts).
 */
export function publicRequestUrl(req: Request): string {
  const url = new URL(req.url);
  if (env().isProduction) return url.toString();
  const host = req.headers.get("host");
  if (host && HOST.test(host)) url.host = host;
  return url.toString();
}
