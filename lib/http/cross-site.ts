import { appBaseUrl } from "@/lib/config/public-url";
import { AppError } from "@/lib/errors";

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

function hostOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * Refuses a cross-site write made with the session cookie (CSRF): a browser says where a request comes
 * from (Sec-Fetch-Site; Origin on every POST), and only this site itself may write with the cookie. A
 * sibling subdomain is "same-site" for the cookie's SameSite=Lax but not same-origin, so it is refused
 * too. Requests without a cookie (bearer tokens, API keys, signed webhooks) and requests no browser
 * made (no Sec-Fetch-Site, no Origin: curl, scripts) are not judged here.
 */
export function refuseCrossSiteWrite(req: Request): void {
  if (!UNSAFE.has(req.method) || !req.headers.get("cookie") || req.headers.get("authorization")) return;
  const site = req.headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") throw refused();
  const origin = req.headers.get("origin");
  if (origin === null) return;
  const from = hostOf(origin);
  const allowed = new Set(
    [
      hostOf(req.url),
      hostOf(appBaseUrl()),
      req.headers.get("host")?.toLowerCase() ?? null,
      req.headers.get("x-forwarded-host")?.split(",")[0].trim().toLowerCase() ?? null,
    ].filter((h): h is string => Boolean(h)),
  );
  if (!from || !allowed.has(from)) throw refused();
}

function refused(): AppError {
  return new AppError("forbidden", "Cross-site request refused: this change can only be made from this site's own pages", {
    reason: "cross_site",
  });
}
