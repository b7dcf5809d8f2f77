import { encode } from "next-auth/jwt";
import type { NextRouteHandler } from "@/lib/http/route";
import { signInUser } from "@/lib/auth/sign-in-user";
import { drainSettlements } from "@/lib/credits";

export interface CallOptions {
  method?: string;
  /** Path and query, e.g. "/api/credits/history?year=2026". */
  path?: string;
  body?: unknown;
  /** Raw body (string, bytes or stream), sent as is. */
  rawBody?: BodyInit;
  headers?: Record<string, string>;
  /** Session cookie (from signIn()). */
  cookie?: string;
  params?: Record<string, string>;
  signal?: AbortSignal;
}

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
  response: Response;
}

/**
 * Calls a route handler with a real Request, exactly as Next does (params as a Promise), and, as
 * Next's after() does, waits for the work the handler left for after its answer (settlements).
 */
export async function call<T = any>(handler: NextRouteHandler, options: CallOptions = {}): Promise<CallResult<T>> {
  const response = await send(handler, options);
  const text = await response.text();
  await drainSettlements();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON (streams, redirects)
  }
  return { status: response.status, headers: response.headers, body, text, response };
}

/** Like call() but returns the Response unread (for streams). */
export async function send(handler: NextRouteHandler, options: CallOptions = {}): Promise<Response> {
  const headers = new Headers(options.headers);
  if (options.cookie) headers.set("cookie", options.cookie);
  let body: BodyInit | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  const method = options.method ?? (body === undefined ? "GET" : "POST");
  const req = new Request(`http://localhost:3000${options.path ?? "/"}`, {
    method,
    headers,
    body,
    signal: options.signal,
    ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
  } as RequestInit);
  return handler(req, { params: Promise.resolve(options.params ?? {}) });
}

/**
 * Mints a real next-auth session cookie (the same JWT the sign-in flow issues) for a user; by default
 * the development email sign-in's (authMethod "dev", email not verified by a provider).
 */
export async function sessionCookie(
  user: { id: string; email: string | null },
  claims: { authMethod?: string; emailVerified?: boolean; sid?: string; signedInAt?: number } = {},
): Promise<string> {
  const token = await encode({
    token: {
      sub: user.id,
      email: user.email,
      authMethod: claims.authMethod ?? "dev",
      emailVerified: claims.emailVerified ?? false,
      ...(claims.sid ? { sid: claims.sid } : {}),
      ...(claims.signedInAt ? { signedInAt: claims.signedInAt } : {}),
    },
    secret: process.env.NEXTAUTH_SECRET as string,
  });
  return `next-auth.session-token=${token}`;
}

let counter = 0;

/** Signs a user in through the app's own sign-in function (creating them once) and returns their session cookie. */
export async function signIn(email?: string) {
  const address = email ?? `user${Date.now()}-${++counter}@example.com`;
  const user = await signInUser({ email: address });
  return { user, cookie: await sessionCookie(user) };
}
