import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as auditGet } from "@/app/api/admin/audit/route";
import { GET as usageGet } from "@/app/api/admin/usage/route";
import { GET as aiRoutesGet } from "@/app/api/admin/ai/routes/route";
import { GET as cronGet } from "@/app/api/admin/cron/route";
import * as cronRun from "@/app/api/admin/cron/[job]/run/route";
import { GET as emailsGet } from "@/app/api/admin/emails/route";
import { GET as summaryGet } from "@/app/api/admin/metrics/summary/route";
import * as users from "@/app/api/admin/users/route";
import { GET as userGet } from "@/app/api/admin/users/[id]/route";
import { POST as creditsPost } from "@/app/api/admin/users/[id]/credits/route";
import { POST as lockPost } from "@/app/api/admin/users/[id]/lock/route";
import { POST as unlockPost } from "@/app/api/admin/users/[id]/unlock/route";
import { POST as unlinkPost } from "@/app/api/admin/users/[id]/identities/[identityId]/unlink/route";
import { POST as revokeKeyPost } from "@/app/api/admin/users/[id]/keys/[keyId]/revoke/route";
import { GET as webhooksGet } from "@/app/api/admin/webhooks/route";
import { GET as webhookGet } from "@/app/api/admin/webhooks/[id]/route";
import { POST as replayPost } from "@/app/api/admin/webhooks/[id]/replay/route";
import { GET as organisationsGet } from "@/app/api/admin/organisations/route";
import { GET as organisationAuditGet } from "@/app/api/admin/organisations/[id]/audit/route";
import { GET as outboundGet } from "@/app/api/admin/outbound/route";
import * as outboundReplay from "@/app/api/admin/outbound/[id]/replay/route";
import { closeDb, db } from "@/lib/db/client";
import type { NextRouteHandler } from "@/lib/http/route";
import { routeFiles } from "@/lib/http/openapi";
import { unknownApiPath } from "@/lib/http/unknown-path";
import { setEnv } from "@/tests/helpers/env";
import { call, sessionCookie, signIn } from "@/tests/helpers/http";

/**
 * Who is an operator, and that the operator API does not exist for anyone else: every admin route,
 * every method, answers exactly what a path no route serves answers (404, same body, no rate-limit
 * headers), whatever the caller tries.
 */
afterAll(closeDb);

const TOKEN = "admin-token-for-tests-0123456789abcdef";
let restore: () => void;
beforeAll(() => {
  restore = setEnv({ ADMIN_EMAILS: "Ops@Example.com, second-op@example.com", ADMIN_API_TOKEN: TOKEN });
});
afterAll(() => restore());

const ID = "00000000-0000-4000-8000-000000000000";
const KEY_ID = "00000000-0000-4000-8000-00000000000a";
const REASON = { reason: "checking access" };

/** Every admin operation: method, path, handler, params and a valid body (table-driven below). */
const OPERATIONS: Array<{ method: string; path: string; handler: NextRouteHandler; params?: Record<string, string>; body?: unknown }> = [
  { method: "GET", path: "/api/admin/users?q=a", handler: users.GET },
  { method: "GET", path: `/api/admin/users/${ID}`, handler: userGet, params: { id: ID } },
  {
    method: "POST",
    path: `/api/admin/users/${ID}/credits`,
    handler: creditsPost,
    params: { id: ID },
    body: { amount: 10, bucket: "subscription", reason: "x-check", idempotencyKey: "k1" },
  },
  { method: "POST", path: `/api/admin/users/${ID}/lock`, handler: lockPost, params: { id: ID }, body: REASON },
  { method: "POST", path: `/api/admin/users/${ID}/unlock`, handler: unlockPost, params: { id: ID }, body: REASON },
  {
    method: "POST",
    path: `/api/admin/users/${ID}/identities/${ID}/unlink`,
    handler: unlinkPost,
    params: { id: ID, identityId: ID },
    body: REASON,
  },
  {
    method: "POST",
    path: `/api/admin/users/${ID}/keys/${KEY_ID}/revoke`,
    handler: revokeKeyPost,
    params: { id: ID, keyId: KEY_ID },
    body: REASON,
  },
  { method: "GET", path: "/api/admin/webhooks?status=failed", handler: webhooksGet },
  { method: "GET", path: `/api/admin/webhooks/${ID}`, handler: webhookGet, params: { id: ID } },
  { method: "POST", path: `/api/admin/webhooks/${ID}/replay`, handler: replayPost, params: { id: ID }, body: REASON },
  { method: "GET", path: "/api/admin/cron", handler: cronGet },
  {
    method: "POST",
    path: "/api/admin/cron/expire-bonus-credits/run",
    handler: cronRun.POST,
    params: { job: "expire-bonus-credits" },
    body: REASON,
  },
  { method: "GET", path: "/api/admin/emails", handler: emailsGet },
  { method: "GET", path: "/api/admin/metrics/summary", handler: summaryGet },
  { method: "GET", path: "/api/admin/audit", handler: auditGet },
  { method: "GET", path: "/api/admin/usage", handler: usageGet },
  { method: "GET", path: "/api/admin/ai/routes", handler: aiRoutesGet },
  { method: "GET", path: "/api/admin/organisations?q=a", handler: organisationsGet },
  { method: "GET", path: `/api/admin/organisations/${ID}/audit`, handler: organisationAuditGet, params: { id: ID } },
  { method: "GET", path: "/api/admin/outbound?status=failed", handler: outboundGet },
  { method: "POST", path: `/api/admin/outbound/${ID}/replay`, handler: outboundReplay.POST, params: { id: ID }, body: REASON },
];

async function hiddenAnswer(pathname: string) {
  const res = await unknownApiPath(new Request(`http://localhost:3000${pathname}`));
  return { status: res.status, body: await res.json() };
}

describe("operator API: nobody else learns it exists", () => {
  it("covers every admin route file", () => {
    const app = path.join(process.cwd(), "app");
    const files = routeFiles(path.join(app, "api", "admin")).map((f) => path.relative(app, f));
    expect(files).toHaveLength(21);
    const pattern = (p: string) =>
      p.split("?")[0].replace(ID, "[id]").replace(ID, "[identityId]").replace(KEY_ID, "[keyId]").replace("expire-bonus-credits", "[job]");
    expect(new Set(OPERATIONS.map((o) => `api${pattern(o.path).replace(/^\/api/, "")}/route.ts`))).toEqual(new Set(files));
  });

  it("answers 404 like an unknown path to every caller that is not an operator, on every route and method", async () => {
    const stranger = await signIn("stranger@example.com");
    const prisma = await db();
    const lockedOp = await signIn("second-op@example.com");
    await prisma.user.update({ where: { id: lockedOp.user.id }, data: { lockedAt: new Date(), lockReason: "test" } });
    const listedButUnverifiedInProduction = await signIn("ops@example.com");

    const callers: Array<{ name: string; headers?: Record<string, string>; cookie?: string; env?: Record<string, string> }> = [
      { name: "no session" },
      { name: "a signed-in user who is not listed", cookie: stranger.cookie },
      { name: "a listed operator whose account is locked", cookie: lockedOp.cookie },
      { name: "a wrong admin token", headers: { authorization: `Bearer ${TOKEN.slice(0, -1)}x` } },
      { name: "the admin token as a prefix", headers: { authorization: `Bearer ${TOKEN.slice(0, 20)}` } },
      { name: "a garbage session token", headers: { authorization: "Bearer not-a-jwt" } },
      {
        name: "a listed email from the development sign-in in production (not verified)",
        cookie: listedButUnverifiedInProduction.cookie,
        env: { APP_ENV: "production", CRON_SECRET: "c".repeat(32), AUTH_DEV_LOGIN: "true", AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION: "true" },
      },
    ];
    let checked = 0;
    for (const caller of callers) {
      const restoreCaller = setEnv(caller.env ?? {});
      try {
        for (const op of OPERATIONS) {
          for (const method of [op.method, "PUT", "DELETE"]) {
            const handler = (
              method === op.method ? op.handler : (op.handler === users.GET ? users : cronRun)[method as "PUT"]
            ) as NextRouteHandler;
            if (method !== op.method && op.handler !== users.GET && op.handler !== cronRun.POST) continue;
            const res = await call(handler, {
              method,
              path: op.path,
              params: op.params,
              body: method === op.method ? op.body : undefined,
              cookie: caller.cookie,
              headers: caller.headers,
            });
            const expected = await hiddenAnswer(op.path.split("?")[0]);
            expect({ caller: caller.name, op: `${method} ${op.path}`, status: res.status, body: res.body }).toEqual({
              caller: caller.name,
              op: `${method} ${op.path}`,
              ...expected,
            });
            expect(res.headers.get("x-ratelimit-limit")).toBeNull();
            expect(res.headers.get("cache-control")).toBe("no-store");
            checked++;
          }
        }
      } finally {
        restoreCaller();
      }
    }
    expect(checked).toBe(callers.length * (OPERATIONS.length + 4));
    // Nothing was written on anyone's behalf.
    expect(await prisma.adminAction.count()).toBe(0);
  });

  it("lets an operator in: a listed email (any case) from a sign-in, or the admin token; never cached, rate limited", async () => {
    const op = await signIn("OPS@example.com");
    for (const auth of [{ cookie: op.cookie }, { headers: { authorization: `Bearer ${TOKEN}` } }]) {
      const res = await call(summaryGet, { path: "/api/admin/metrics/summary", ...auth });
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(Number(res.headers.get("x-ratelimit-limit"))).toBeGreaterThan(0);
    }
    // An operator learns the 405 of a method the route does not have; others got the 404 above.
    const wrong = await call(users.PUT, { method: "PUT", path: "/api/admin/users", cookie: op.cookie });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET");
  });

  it("in production, an OAuth or OIDC session's listed email is an operator; the development sign-in's never is", async () => {
    const op = await signIn("ops@example.com");
    const restoreProd = setEnv({
      APP_ENV: "production",
      CRON_SECRET: "c".repeat(32),
      AUTH_DEV_LOGIN: "true",
      AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION: "true",
    });
    try {
      const verified = await sessionCookie(op.user, { authMethod: "google", emailVerified: true });
      expect((await call(summaryGet, { path: "/api/admin/metrics/summary", cookie: verified })).status).toBe(200);
      const unverified = await sessionCookie(op.user, { authMethod: "oidc", emailVerified: false });
      expect((await call(summaryGet, { path: "/api/admin/metrics/summary", cookie: unverified })).status).toBe(404);
      expect((await call(summaryGet, { path: "/api/admin/metrics/summary", cookie: op.cookie })).status).toBe(404);
    } finally {
      restoreProd();
    }
  });

  it("has no operators when ADMIN_EMAILS is unset and no token is configured", async () => {
    const op = await signIn("ops@example.com");
    const restoreNone = setEnv({ ADMIN_EMAILS: undefined, ADMIN_API_TOKEN: undefined });
    try {
      expect((await call(summaryGet, { path: "/api/admin/metrics/summary", cookie: op.cookie })).status).toBe(404);
      expect((await call(summaryGet, { path: "/api/admin/metrics/summary", headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
        404,
      );
    } finally {
      restoreNone();
    }
  });
});
