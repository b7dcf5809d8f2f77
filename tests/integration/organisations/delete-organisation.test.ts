import { describe, expect, it } from "vitest";
import * as orgs from "@/app/api/orgs/route";
import * as org from "@/app/api/orgs/[id]/route";
import * as invites from "@/app/api/orgs/[id]/invites/route";
import * as accept from "@/app/api/invites/accept/route";
import * as chat from "@/app/api/ai/chat/route";
import * as keys from "@/app/api/keys/route";
import * as completions from "@/app/v1/chat/completions/route";
import { db } from "@/lib/db/client";
import { call } from "@/tests/helpers/http";
import { stubProviderForFile } from "../ai/ai-test-kit";
import { v1 } from "../api-keys/key-test-kit";
import { actingAs, grant, mailedInviteToken, person, team, useOperator } from "./org-test-kit";

await stubProviderForFile();

const operator = useOperator("delete-org-operator@example.com");

const hello = { messages: [{ role: "user", content: "Hello there" }] };
const remove = (id: string, cookie: string | undefined, body: unknown) =>
  call(org.DELETE, { method: "DELETE", path: `/api/orgs/${id}`, params: { id }, cookie, body });

describe("deleting an organisation", () => {
  it("only its owner, typing its slug: keys revoked, invitations voided, members detached, the ledger kept and closed", async () => {
    const t = await team();
    const id = t.orgId;
    await grant(operator.cookie, id, 500);
    const prisma = await db();
    const { slug } = await prisma.organisation.findUniqueOrThrow({ where: { id } });
    const made = await call(keys.POST, { path: "/api/keys", cookie: t.member.cookie, headers: actingAs(id), body: { name: "team key" } });
    expect(made.status).toBe(200);
    const secret = made.body.secret as string;
    const ask = () =>
      v1(completions.POST, "/v1/chat/completions", secret, { body: { model: "gpt-4o", messages: hello.messages, max_tokens: 10 } });
    expect((await ask()).status).toBe(200);
    expect((await call(chat.POST, { path: "/api/ai/chat", cookie: t.admin.cookie, headers: actingAs(id), body: hello })).status).toBe(200);
    const invitee = await person("late-invitee");
    const sent = await call(invites.POST, {
      path: `/api/orgs/${id}/invites`,
      params: { id },
      cookie: t.owner.cookie,
      body: { email: invitee.user.email },
    });
    expect(sent.status).toBe(200);
    const ledgerBefore = await prisma.creditTransaction.count({ where: { userId: id } });
    const balanceBefore = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: id } });

    // Refused: an admin or a member (403), an outsider and no session (404, 401), a wrong or missing confirmation (400).
    for (const who of [t.admin, t.member]) expect((await remove(id, who.cookie, { confirm: slug })).status).toBe(403);
    const outsider = await remove(id, t.outsider.cookie, { confirm: slug });
    expect(outsider.status).toBe(404);
    expect((await remove(id, undefined, { confirm: slug })).status).toBe(401);
    const wrong = await remove(id, t.owner.cookie, { confirm: "acme" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toContain(`confirm: type the organisation's slug (${slug})`);
    const missing = await remove(id, t.owner.cookie, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/confirm/);
    expect(await prisma.organisationMember.count({ where: { organisationId: id } })).toBe(3);

    const done = await remove(id, t.owner.cookie, { confirm: slug });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ deleted: true, id, membersDetached: 3, keysRevoked: 1, invitesVoided: 1 });

    // Gone for everyone who was in it; the key and the invitation never work again.
    expect((await call(org.GET, { path: `/api/orgs/${id}`, params: { id }, cookie: t.owner.cookie })).status).toBe(404);
    const listed = await call(orgs.GET, { path: "/api/orgs", cookie: t.member.cookie });
    expect(listed.body.organisations.map((o: { id: string }) => o.id)).not.toContain(id);
    expect((await ask()).status).toBe(401);
    const acting = await call(chat.POST, { path: "/api/ai/chat", cookie: t.admin.cookie, headers: actingAs(id), body: hello });
    expect([403, 404]).toContain(acting.status);
    const token = await mailedInviteToken(invitee.user.email as string);
    expect((await call(accept.POST, { path: "/api/invites/accept", cookie: invitee.cookie, body: { token } })).status).toBe(404);
    expect((await remove(id, t.owner.cookie, { confirm: slug })).status).toBe(404);

    // Nothing lost from the ledger: the rows and the balance stay on the closed account.
    expect(await prisma.creditTransaction.count({ where: { userId: id } })).toBe(ledgerBefore);
    expect((await prisma.creditBalance.findUniqueOrThrow({ where: { userId: id } })).subscriptionCredits).toBe(
      balanceBefore.subscriptionCredits,
    );
    const closed = await prisma.organisation.findUniqueOrThrow({ where: { id } });
    expect(closed.closedAt).not.toBeNull();
    expect(closed.closedBy).toBe(t.owner.user.id);
    // Its slug is free again.
    const again = await call(orgs.POST, { path: "/api/orgs", cookie: t.owner.cookie, body: { name: "Acme Research", slug } });
    expect(again.status).toBe(200);
    expect(again.body.organisation.slug).toBe(slug);
  });

  it("is refused while an operator has the organisation locked", async () => {
    const { POST: lock } = await import("@/app/api/admin/users/[id]/lock/route");
    const t = await team();
    const id = t.orgId;
    const { slug } = await (await db()).organisation.findUniqueOrThrow({ where: { id } });
    expect(
      (await call(lock, { path: `/api/admin/users/${id}/lock`, params: { id }, cookie: operator.cookie, body: { reason: "review" } }))
        .status,
    ).toBe(200);
    const refused = await remove(id, t.owner.cookie, { confirm: slug });
    expect(refused.status).toBe(403);
    expect(await (await db()).organisationMember.count({ where: { organisationId: id } })).toBe(3);
  });
});
