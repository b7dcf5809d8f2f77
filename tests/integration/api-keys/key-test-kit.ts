import { expect } from "vitest";
import * as keysRoute from "@/app/api/keys/route";
import type { NextRouteHandler } from "@/lib/http/route";
import { call, send, signIn, type CallOptions } from "@/tests/helpers/http";

/** Shared steps of the API-key tests: a user with a key made through the API, and /v1 calls with it. */
export async function userWithKey(body: Record<string, unknown> = {}, email?: string) {
  const { user, cookie } = await signIn(email);
  const created = await call(keysRoute.POST, { path: "/api/keys", cookie, body: { name: "test key", ...body } });
  if (created.status !== 200) throw new Error(`key not created: ${created.status} ${created.text}`);
  return { user, cookie, secret: created.body.secret as string, key: created.body.key as { id: string } & Record<string, unknown> };
}

export const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

/** Calls a /v1 handler with a key (and any other options). */
export function v1(handler: NextRouteHandler, path: string, secret: string | null, options: CallOptions = {}) {
  return call(handler, { path, ...options, headers: { ...(secret ? bearer(secret) : {}), ...options.headers } });
}

export function v1Send(handler: NextRouteHandler, path: string, secret: string, options: CallOptions = {}) {
  return send(handler, { path, ...options, headers: { ...bearer(secret), ...options.headers } });
}

/** The exact error shape of the /v1 API. */
export function openAiError(code: string | null, type: string, param: string | null = null) {
  return { error: { message: expect.any(String), type, code, param } };
}
