import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/options";
import { env } from "@/lib/config/env";
import { methods, type NextRouteHandler } from "@/lib/http/route";

export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ nextauth: string[] }> };

let trustHostSetHere = false;

// Options are built per request so env changes (tests, flags) apply without a restart.
async function handler(req: Request, ctx: Ctx) {
  // next-auth sends its redirects to NEXTAUTH_URL, else to http://localhost:3000 unless told to trust
  // the request's host. Outside production with no NEXTAUTH_URL, answer on the origin the browser
  // used (Host / X-Forwarded-*), as the rest of the app does; production sets NEXTAUTH_URL.
  const e = env();
  const trustHost = !e.isProduction && !e.NEXTAUTH_URL;
  if (trustHost && !process.env.AUTH_TRUST_HOST) {
    process.env.AUTH_TRUST_HOST = "true";
    trustHostSetHere = true;
  } else if (!trustHost && trustHostSetHere) {
    delete process.env.AUTH_TRUST_HOST;
    trustHostSetHere = false;
  }
  const response: Response = await NextAuth(req as never, ctx as never, authOptions());
  // Signing out also clears what the browser cached of this account's private answers.
  if (req.method !== "POST" || !new URL(req.url).pathname.endsWith("/signout")) return response;
  const headers = new Headers(response.headers);
  headers.set("Clear-Site-Data", '"cache"');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

// next-auth answers GET and POST; every other method gets our 405 with an Allow header.
const nextAuth = handler as unknown as NextRouteHandler;
export const { GET, POST, PUT, PATCH, DELETE } = methods({ GET: nextAuth, POST: nextAuth });
