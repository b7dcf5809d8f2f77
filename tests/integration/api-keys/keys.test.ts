import { createHash } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import * as keyRoute from "@/app/api/keys/[id]/route";
import * as keysRoute from "@/app/api/keys/route";
import * as userStatus from "@/app/api/user/status/route";
import * as models from "@/app/v1/models/route";
import { MAX_ACTIVE_KEYS } from "@/lib/api-keys/manage-api-keys";
import { closeDb, db } from "@/lib/db/client";
import { forgetUser } from "@/lib/users/account-state";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { bearer, userWithKey, v1 } from "./key-test-kit";

afterAll(closeDb);

const SECRET = /^sk-[0-9A-Za-z]{43}$/;

describe("/api/keys: a signed-in user's API keys", () => {
  it("answers 401 without a session, and 404 on every keys endpoint when API_KEYS_ENABLED is false", async () => {
    expect((await call(keysRoute.GET, { path: "/api/keys" })).status).toBe(401);
    expect((await call(keysRoute.POST, { path: "/api/keys", body: { name: "x" } })).status).toBe(401);
    const { cookie } = await signIn();
    const undo = setEnv({ API_KEYS_ENABLED: "false" });
    try {
      expect((await call(keysRoute.GET, { path: "/api/keys", cookie })).status).toBe(404);
      expect((await call(keysRoute.POST, { path: "/api/keys", cookie, body: { name: "x" } })).status).toBe(404);
      expect((await call(keyRoute.DELETE, { path: "/api/keys/x", cookie, params: { id: "x" }, method: "DELETE" })).status).toBe(404);
    } finally {
      undo();
    }
  });

  it("shows the secret once and stores only its hash, prefix and last four", async () => {
    const { user, cookie } = await signIn();
    const created = await call(keysRoute.POST, { path: "/api/keys", cookie, body: { name: "  CI server  " } });
    expect(created.status).toBe(200);
    const { secret, key } = created.body;
    expect(secret).toMatch(SECRET);
    expect(key).toMatchObject({
      name: "CI server",
      display: `${secret.slice(0, 7)}…${secret.slice(-4)}`,
      status: "active",
      models: [],
      kinds: [],
      budget: null,
      rpm: null,
      totalSpent: 0,
      lastUsedAt: null,
    });
    const listed = await call(keysRoute.GET, { path: "/api/keys", cookie });
    expect(listed.body.keys).toHaveLength(1);
    expect(listed.text).not.toContain(secret);
    expect(listed.text).not.toContain(secret.slice(7, -4));
    const prisma = await db();
    const row = await prisma.apiKey.findFirstOrThrow({ where: { userId: user.id } });
    expect(row.hash).toBe(createHash("sha256").update(secret).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(secret.slice(7, -4));
    // Two keys never share a secret.
    const second = await call(keysRoute.POST, { path: "/api/keys", cookie, body: { name: "second" } });
    expect(second.body.secret).not.toBe(secret);
  });

  it("refuses bad limits with a 400 naming the field, creating nothing", async () => {
    const { user, cookie } = await signIn();
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "" }, "name"],
      [{}, "name"],
      [{ name: "k", models: ["no-such-model"] }, "models"],
      [{ name: "k", kinds: ["video"] }, "kinds"],
      [{ name: "k", budget: { credits: 0, period: "day" } }, "budget.credits"],
      [{ name: "k", budget: { credits: 10, period: "week" } }, "budget.period"],
      [{ name: "k", rpm: -1 }, "rpm"],
      [{ name: "k", expiresAt: "tomorrow" }, "expiresAt"],
      [{ name: "k", expiresAt: new Date(Date.now() - 1000).toISOString() }, "expiresAt"],
      [{ name: "ops\r\nBcc: everyone" }, "name"],
      [{ name: "tab\there" }, "name"],
    ];
    for (const [body, field] of cases) {
      const res = await call(keysRoute.POST, { path: "/api/keys", cookie, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toContain(field);
    }
    expect(await (await db()).apiKey.count({ where: { userId: user.id } })).toBe(0);
  });

  it("PATCH with nothing to change answers 400 (never 409 nor 200), and changes nothing", async () => {
    const { cookie } = await signIn();
    const created = await call(keysRoute.POST, { path: "/api/keys", cookie, body: { name: "unchanged" } });
    const id = created.body.key.id as string;
    const res = await call(keyRoute.PATCH, { method: "PATCH", path: `/api/keys/${id}`, params: { id }, cookie, body: {} });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/must change at least one field/);
    const line = await call(keyRoute.PATCH, { method: "PATCH", path: `/api/keys/${id}`, params: { id }, cookie, body: { name: "a\nb" } });
    expect(line.status).toBe(400);
    expect(line.body.error).toMatch(/one line of printable text/);
  });

  it("renames and re-limits a key, revokes it for good, and answers another user's key as missing", async () => {
    const { cookie, key } = await userWithKey();
    const other = await signIn();
    const patched = await call(keyRoute.PATCH, {
      method: "PATCH",
      path: `/api/keys/${key.id}`,
      params: { id: key.id },
      cookie,
      body: { name: "renamed", models: ["gpt-4o-mini"], kinds: ["chat"], budget: { credits: 100, period: "day" }, rpm: 30 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.key).toMatchObject({
      name: "renamed",
      models: ["gpt-4o-mini"],
      kinds: ["chat"],
      budget: { credits: 100, period: "day", spent: 0 },
      rpm: 30,
    });
    expect(patched.body.key.budget.resetsAt).toBe(
      new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1)).toISOString(),
    );

    for (const handler of [keyRoute.PATCH, keyRoute.DELETE]) {
      const method = handler === keyRoute.PATCH ? "PATCH" : "DELETE";
      const body = method === "PATCH" ? { name: "stolen" } : undefined;
      expect(
        (await call(handler, { method, path: `/api/keys/${key.id}`, params: { id: key.id }, cookie: other.cookie, body })).status,
      ).toBe(404);
      expect((await call(handler, { method, path: "/api/keys/not-a-uuid", params: { id: "not-a-uuid" }, cookie, body })).status).toBe(404);
    }
    const revoked = await call(keyRoute.DELETE, { method: "DELETE", path: `/api/keys/${key.id}`, params: { id: key.id }, cookie });
    expect(revoked.status).toBe(200);
    expect(revoked.body.key).toMatchObject({ status: "revoked", name: "renamed" });
    const again = await call(keyRoute.DELETE, { method: "DELETE", path: `/api/keys/${key.id}`, params: { id: key.id }, cookie });
    expect(again.status).toBe(200);
    const change = await call(keyRoute.PATCH, {
      method: "PATCH",
      path: `/api/keys/${key.id}`,
      params: { id: key.id },
      cookie,
      body: { name: "back" },
    });
    expect(change.status).toBe(409);
    expect(change.body.error).toContain("revoked");
  });

  it(`allows ${MAX_ACTIVE_KEYS} active keys at once (403 for one more; a revoked key frees a place)`, async () => {
    const { user, cookie } = await signIn();
    const prisma = await db();
    await prisma.apiKey.createMany({
      data: Array.from({ length: MAX_ACTIVE_KEYS }, (_, i) => ({
        userId: user.id,
        name: `k${i}`,
        hash: `h-${user.id}-${i}`,
        prefix: "sk-test",
        lastFour: "abcd",
      })),
    });
    const refused = await call(keysRoute.POST, { path: "/api/keys", cookie, body: { name: "one more" } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toContain(`${MAX_ACTIVE_KEYS} active keys`);
    const first = await prisma.apiKey.findFirstOrThrow({ where: { userId: user.id } });
    await call(keyRoute.DELETE, { method: "DELETE", path: `/api/keys/${first.id}`, params: { id: first.id }, cookie });
    expect((await call(keysRoute.POST, { path: "/api/keys", cookie, body: { name: "one more" } })).status).toBe(200);
  });

  it("a locked account may list its keys but not create or change them", async () => {
    const { user, cookie, key } = await userWithKey();
    await (await db()).user.update({ where: { id: user.id }, data: { lockedAt: new Date(), lockReason: "test" } });
    forgetUser(user.id);
    expect((await call(keysRoute.GET, { path: "/api/keys", cookie })).status).toBe(200);
    expect((await call(keysRoute.POST, { path: "/api/keys", cookie, body: { name: "x" } })).status).toBe(403);
    expect((await call(keyRoute.DELETE, { method: "DELETE", path: `/api/keys/${key.id}`, params: { id: key.id }, cookie })).status).toBe(
      403,
    );
  });

  it("a key reaches the /v1 API only: session endpoints answer it 401", async () => {
    const { secret } = await userWithKey();
    expect((await v1(models.GET, "/v1/models", secret)).status).toBe(200);
    expect((await call(userStatus.GET, { path: "/api/user/status", headers: bearer(secret) })).status).toBe(401);
    expect((await call(keysRoute.GET, { path: "/api/keys", headers: bearer(secret) })).status).toBe(401);
    expect((await call(keysRoute.POST, { path: "/api/keys", headers: bearer(secret), body: { name: "escalate" } })).status).toBe(401);
  });
});
