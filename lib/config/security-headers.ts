/**
 * The security headers of every response, in one place: next.config.ts sets them on all routes
 * (pages and API alike: API requests with a body never reach proxy.ts), and proxy.ts on the answers
 * it gives itself. HSTS only in production builds: a development server on http://localhost must not
 * pin the browser to https (browsers ignore it over http anyway). Pages also get their CSP from
 * proxy.ts (it carries a per-request nonce). Edge-safe, no imports: next.config.ts loads it.
 */
export function securityHeaders(production = process.env.NODE_ENV === "production"): { key: string; value: string }[] {
  return [
    { key: "X-Content-Type-Options", value: "nosniff" },
    { key: "X-Frame-Options", value: "DENY" },
    { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
    { key: "Permissions-Policy", value: "camera=(), geolocation=(), microphone=(self)" },
    { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
    ...(production ? [{ key: "Strict-Transport-Security", value: "max-age=63072000; includeSubDomains" }] : []),
  ];
}
