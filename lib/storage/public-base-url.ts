import { env } from "@/lib/config/env";

/** The app's public origin for absolute file addresses: NEXTAUTH_URL when set, else the request's origin. */
export function publicBaseUrl(requestUrl: string): string {
  const configured = env().NEXTAUTH_URL;
  return configured ? new URL(configured).origin : new URL(requestUrl).origin;
}
