import { env } from "@/lib/config/env";

/** The app's public base URL: NEXTAUTH_URL when set, else the origin of the request being served. */
export function appBaseUrl(requestUrl?: string): string {
  const configured = env().NEXTAUTH_URL;
  if (configured) return configured.replace(/\/+$/, "");
  if (requestUrl) return new URL(requestUrl).origin;
  return "http://localhost:3000";
}

/**
 * Resolves a caller-supplied return address against the app: relative paths and same-origin URLs
 * are accepted (absolute result); anything else is null (never an open redirect).
 */
export function sameOriginUrl(candidate: string | null | undefined, base: string): string | null {
  if (!candidate) return null;
  try {
    const resolved = new URL(candidate, `${base}/`);
    return resolved.origin === new URL(base).origin ? resolved.toString() : null;
  } catch {
    return null;
  }
}
