import { describe, expect, it } from "vitest";
import * as audit from "@/app/api/orgs/[id]/audit/route";
import * as adminAudit from "@/app/api/admin/organisations/[id]/audit/route";
import * as member from "@/app/api/orgs/[id]/members/[userId]/route";
import * as org from "@/app/api/orgs/[id]/route";
import * as keys from "@/app/api/keys/route";
import * as keyRoute from "@/app/api/keys/[id]/route";
import { db } from "@/lib/db/client";
import { call } from "@/tests/helpers/http";
import { deliver, orderEvent } from "../billing/fixtures";
import { refundEvent } from "../billing/refund-race";
import { actingAs, grant, person, team, useOperator } from "./org-test-kit";

const operator = useOperator("audit-operator@example.com");

type AuditEvent = {
  action: string;
  actor: { id: string | null; email: string | null } | null;
  targetId: string | null;
  details: Record<string, unknown>;
};
const read = (id: string, cookie: string | undefined, query = "") =>
  call(audit.GET, { path: `/api/orgs/${id}/audit${query}`, params: { id }, cookie });

describe("an organisation's audit log", () => {
  it("records every change with who made it, newest first; owners and admins read it (paged, filtered, CSV), members may not", async () => {
    const t = await team();
    const id = t.orgId;
    const memberPath = `/api/orgs/${id}/members/${t.member.user.id}`;
    const patch = (body: unknown) =>
      call(member.PATCH, { method: "PATCH", path: memberPath, params: { id, userId: t.member.user.id }, cookie: t.admin.cookie, body });
    expect((await patch({ dailyCap: 30 })).status).toBe(200);
    expect((await patch({ role: "admin" })).status).toBe(200);
    expect((await patch({ role: "member" })).status).toBe(200);
    const made = await call(keys.POST, { path: "/api/keys", cookie: t.member.cookie, headers: actingAs(id), body: { name: "ci key" } });
    expect(made.status).toBe(200);
    const keyId = made.body.key.id as string;
    const revoked = await call(keyRoute.DELETE, {
      method: "DELETE",
      path: `/api/keys/${keyId}`,
      params: { id: keyId },
      cookie: t.owner.cookie,
      headers: actingAs(id),
    });
    expect(revoked.status).toBe(200);
    await grant(operator.cookie, id, 250);
    expect(
      (
        await call(org.PATCH, {
          method: "PATCH",
          path: `/api/orgs/${id}`,
          params: { id },
          cookie: t.owner.cookie,
          body: { name: "Acme Labs" },
        })
      ).status,
    ).toBe(200);

    const all = await read(id, t.owner.cookie);
    expect(all.status).toBe(200);
    const events = all.body.events as AuditEvent[];
    expect(events.map((e) => e.action)).toEqual([
      "organisation.updated",
      "wallet.adjusted",
      "key.revoked",
      "key.created",
      "member.updated",
      "member.updated",
      "member.updated",
      "member.joined",
      "invite.sent",
      "member.joined",
      "invite.sent",
      "organisation.created",
    ]);
    const [renamed, adjusted, keyRevoked, keyCreated, demoted, promoted, capped] = events;
    expect(renamed).toMatchObject({
      actor: { id: t.owner.user.id, email: t.owner.user.email },
      details: { name: { from: "Acme Research", to: "Acme Labs" } },
    });
    expect(adjusted).toMatchObject({ actor: null, details: { by: "operator", amount: 250, reason: "test grant" } });
    expect(keyRevoked).toMatchObject({ actor: { id: t.owner.user.id }, targetId: keyId, details: { name: "ci key" } });
    expect(keyCreated).toMatchObject({ actor: { id: t.member.user.id }, targetId: keyId });
    expect(capped).toMatchObject({
      actor: { id: t.admin.user.id },
      targetId: t.member.user.id,
      details: { dailyCap: { from: null, to: 30 } },
    });
    expect(promoted.details).toMatchObject({ role: { from: "member", to: "admin" } });
    expect(demoted.details).toMatchObject({ role: { from: "admin", to: "member" } });
    expect(events.at(-4)).toMatchObject({ action: "invite.sent", details: { email: t.member.user.email, role: "member" } });

    // The admin reads it too; a member may not (403), an outsider gets 404 as for any organisation not theirs, no session 401.
    expect((await read(id, t.admin.cookie)).status).toBe(200);
    expect((await read(id, t.member.cookie)).status).toBe(403);
    expect((await read(id, t.outsider.cookie)).status).toBe(404);
    expect((await read(id, undefined)).status).toBe(401);

    // Pages of 5 with no overlap and nothing missed; a family filter; bad queries name the parameter.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { events: { id: string }[]; nextCursor: string | null } } = await read(
        id,
        t.owner.cookie,
        `?limit=5${cursor ? `&cursor=${cursor}` : ""}`,
      );
      seen.push(...page.body.events.map((e) => e.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual((events as unknown as { id: string }[]).map((e) => e.id));
    const keysOnly = await read(id, t.owner.cookie, "?action=key");
    expect(keysOnly.body.events.map((e: AuditEvent) => e.action)).toEqual(["key.revoked", "key.created"]);
    const bad = await read(id, t.owner.cookie, "?action=nonsense");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/action/);
    expect((await read(id, t.owner.cookie, "?cursor=bm9wZQ")).body.error).toMatch(/cursor/);
    expect((await read(id, t.owner.cookie, "?limit=501")).status).toBe(400);
    const csv = await read(id, t.owner.cookie, "?format=csv&action=wallet");
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const [header, line] = csv.text.trim().split("\r\n");
    expect(header).toBe("createdAt,action,actorId,actorEmail,targetType,targetId,details");
    expect(line).toContain(",wallet.adjusted,,site,wallet,");

    // The operator reads any organisation's, and 404 for what is not one (the operator API is a 404 to anyone else).
    const console = await call(adminAudit.GET, { path: `/api/admin/organisations/${id}/audit`, params: { id }, cookie: operator.cookie });
    expect(console.status).toBe(200);
    expect(console.body.events).toHaveLength(events.length);
    const notOrg = t.owner.user.id;
    expect(
      (await call(adminAudit.GET, { path: `/api/admin/organisations/${notOrg}/audit`, params: { id: notOrg }, cookie: operator.cookie }))
        .status,
    ).toBe(404);
    expect(
      (await call(adminAudit.GET, { path: `/api/admin/organisations/${id}/audit`, params: { id }, cookie: t.owner.cookie })).status,
    ).toBe(404);
  });

  it("records transfers, removals, an operator's lock and the deletion, which the operator can still read", async () => {
    const { POST: lock } = await import("@/app/api/admin/users/[id]/lock/route");
    const { POST: unlock } = await import("@/app/api/admin/users/[id]/unlock/route");
    const { POST: transfer } = await import("@/app/api/orgs/[id]/transfer/route");
    const t = await team();
    const id = t.orgId;
    const made = await call(keys.POST, { path: "/api/keys", cookie: t.member.cookie, headers: actingAs(id), body: { name: "theirs" } });
    expect(made.status).toBe(200);
    const removed = await call(member.DELETE, {
      method: "DELETE",
      path: `/api/orgs/${id}/members/${t.member.user.id}`,
      params: { id, userId: t.member.user.id },
      cookie: t.admin.cookie,
    });
    expect(removed.status).toBe(200);
    const lockPath = `/api/admin/users/${id}/lock`;
    expect((await call(lock, { path: lockPath, params: { id }, cookie: operator.cookie, body: { reason: "review" } })).status).toBe(200);
    expect(
      (await call(unlock, { path: `/api/admin/users/${id}/unlock`, params: { id }, cookie: operator.cookie, body: { reason: "done" } }))
        .status,
    ).toBe(200);
    const moved = await call(transfer, {
      path: `/api/orgs/${id}/transfer`,
      params: { id },
      cookie: t.owner.cookie,
      body: { userId: t.admin.user.id },
    });
    expect(moved.status).toBe(200);
    const events = (await read(id, t.admin.cookie, "?limit=6")).body.events as AuditEvent[];
    expect(events.map((e) => e.action)).toEqual([
      "ownership.transferred",
      "organisation.unlocked",
      "organisation.locked",
      "member.removed",
      "key.revoked",
      "key.created",
    ]);
    expect(events[4]).toMatchObject({ actor: { id: t.admin.user.id }, details: { name: "theirs", by: "member_removed" } });
    expect(events[0]).toMatchObject({ actor: { id: t.owner.user.id }, details: { from: t.owner.user.id, to: t.admin.user.id } });
    expect(events[2]).toMatchObject({ actor: null, details: { by: "operator", reason: "review" } });
    expect(events[3]).toMatchObject({
      actor: { id: t.admin.user.id },
      targetId: t.member.user.id,
      details: { role: "member", keysRevoked: 1 },
    });

    const { slug } = await (await db()).organisation.findUniqueOrThrow({ where: { id } });
    const gone = await call(org.DELETE, {
      method: "DELETE",
      path: `/api/orgs/${id}`,
      params: { id },
      cookie: t.admin.cookie,
      body: { confirm: slug },
    });
    expect(gone.status).toBe(200);
    expect((await read(id, t.admin.cookie)).status).toBe(404);
    const kept = await call(adminAudit.GET, {
      path: `/api/admin/organisations/${id}/audit?limit=1`,
      params: { id },
      cookie: operator.cookie,
    });
    expect(kept.body.events[0]).toMatchObject({
      action: "organisation.deleted",
      actor: { id: t.admin.user.id },
      details: { slug, membersDetached: 2 },
    });
  });

  it("records the wallet's purchases and refunds once each, however often the provider delivers them", async () => {
    const t = await team();
    const order = orderEvent({ id: `ord-audit-${t.orgId}`, userId: t.orgId, variantId: "local-bonus-basic-500" });
    expect((await deliver(order)).body.status).toBe("processed");
    expect((await deliver({ ...order, meta: { ...order.meta, redelivered: 1 } })).status).toBe(200);
    expect((await deliver(refundEvent(order, 499))).body.status).toBe("processed");
    expect((await deliver(refundEvent(order, 499))).status).toBe(200);
    const wallet = (await read(t.orgId, t.owner.cookie, "?action=wallet")).body.events as AuditEvent[];
    expect(wallet.map((e) => e.action)).toEqual(["wallet.refunded", "wallet.purchased"]);
    expect(wallet[1]).toMatchObject({ actor: null, details: { credits: 500, amount: 499 } });
  });

  it("a person's own account has no audit log: their key changes write nothing", async () => {
    const p = await person("audit-person");
    expect((await call(keys.POST, { path: "/api/keys", cookie: p.cookie, body: { name: "mine" } })).status).toBe(200);
    expect(await (await db()).organisationAuditEvent.count({ where: { organisationId: p.user.id } })).toBe(0);
  });
});
