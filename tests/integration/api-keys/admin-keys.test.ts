import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as auditGet } from "@/app/api/admin/audit/route";
import { GET as userGet } from "@/app/api/admin/users/[id]/route";
import { POST as revokePost } from "@/app/api/admin/users/[id]/keys/[keyId]/revoke/route";
import * as models from "@/app/v1/models/route";
import { closeDb } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, sessionCookie, signIn } from "@/tests/helpers/http";
import { userWithKey, v1 } from "./key-test-kit";

afterAll(closeDb);

let restore: () => void;
let operator: string;
beforeAll(async () => {
  restore = setEnv({ ADMIN_EMAILS: "keys-operator@example.com" });
  const { user } = await signIn("keys-operator@example.com");
  operator = await sessionCookie(user, { authMethod: "github", emailVerified: true });
});
afterAll(() => restore());

describe("operator console: a user's API keys", () => {
  it("lists a user's keys without their secrets and revokes one, audited; the key stops working at once", async () => {
    const { user, secret, key } = await userWithKey({ name: "leaked key" });
    const overview = await call(userGet, { path: `/api/admin/users/${user.id}`, params: { id: user.id }, cookie: operator });
    expect(overview.status).toBe(200);
    expect(overview.body.apiKeys).toEqual([expect.objectContaining({ id: key.id, name: "leaked key", status: "active" })]);
    expect(overview.text).not.toContain(secret.slice(7, -4));

    const path = `/api/admin/users/${user.id}/keys/${key.id}/revoke`;
    const missingReason = await call(revokePost, { path, params: { id: user.id, keyId: key.id }, cookie: operator, body: {} });
    expect(missingReason.status).toBe(400);
    expect((await v1(models.GET, "/v1/models", secret)).status).toBe(200);

    const revoked = await call(revokePost, {
      path,
      params: { id: user.id, keyId: key.id },
      cookie: operator,
      body: { reason: "reported leaked" },
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ changed: true, key: { id: key.id, status: "revoked" } });
    expect((await v1(models.GET, "/v1/models", secret)).status).toBe(401);
    const again = await call(revokePost, { path, params: { id: user.id, keyId: key.id }, cookie: operator, body: { reason: "again" } });
    expect(again.body.changed).toBe(false);

    const audit = await call(auditGet, { path: `/api/admin/audit?targetId=${user.id}`, cookie: operator });
    const rows = audit.body.entries ?? audit.body.items ?? audit.body.actions;
    expect(rows.filter((r: { action: string }) => r.action === "user.api_key.revoke")).toHaveLength(1);

    // Another user's key through this user's path names nothing.
    const other = await userWithKey();
    const wrongOwner = await call(revokePost, {
      path: `/api/admin/users/${user.id}/keys/${other.key.id}/revoke`,
      params: { id: user.id, keyId: other.key.id },
      cookie: operator,
      body: { reason: "checking ownership" },
    });
    expect(wrongOwner.status).toBe(404);
    expect((await v1(models.GET, "/v1/models", other.secret)).status).toBe(200);
  });
});
