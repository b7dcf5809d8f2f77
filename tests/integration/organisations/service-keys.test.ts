import { describe, expect, it } from "vitest";
import * as org from "@/app/api/orgs/[id]/route";
import * as member from "@/app/api/orgs/[id]/members/[userId]/route";
import * as usage from "@/app/api/orgs/[id]/usage/route";
import * as keys from "@/app/api/keys/route";
import * as keyRoute from "@/app/api/keys/[id]/route";
import * as completions from "@/app/v1/chat/completions/route";
import * as modelsRoute from "@/app/v1/models/route";
import { call } from "@/tests/helpers/http";
import { stubProviderForFile } from "../ai/ai-test-kit";
import { v1 } from "../api-keys/key-test-kit";
import { actingAs, grant, team, useOperator } from "./org-test-kit";

await stubProviderForFile();
const operator = useOperator("service-keys-operator@example.com");

const ask = (secret: string, model = "gpt-4o") =>
  v1(completions.POST, "/v1/chat/completions", secret, { body: { model, messages: [{ role: "user", content: "hi" }], max_tokens: 10 } });

describe("an organisation's service keys", () => {
  it("made by its owner or admins, charged to the wallet with no member's caps, kept when their maker leaves, under the organisation's model rule", async () => {
    const t = await team();
    const id = t.orgId;
    await grant(operator.cookie, id, 1_000);
    const create = (who: { cookie: string }, body: Record<string, unknown>, headers: Record<string, string> = actingAs(id)) =>
      call(keys.POST, { path: "/api/keys", cookie: who.cookie, headers, body });

    // Refused: a plain member (403), and on a person's own account (400 naming service).
    const byMember = await create(t.member, { name: "nope", service: true });
    expect(byMember.status).toBe(403);
    expect(byMember.body.error).toMatch(/owner and admins create service keys/);
    const personal = await create(t.outsider, { name: "mine", service: true }, {});
    expect(personal.status).toBe(400);
    expect(personal.body.error).toMatch(/service: only an organisation's keys are service keys/);

    // The admin makes one, and a key of their own for the organisation.
    const service = await create(t.admin, { name: "ci pipeline", service: true });
    expect(service.status).toBe(200);
    expect(service.body.key).toMatchObject({ name: "ci pipeline", service: true, status: "active" });
    const own = await create(t.admin, { name: "admin's laptop" });
    expect(own.body.key.service).toBe(false);
    // A plain member lists only their own keys: not the service key.
    const seen = await call(keys.GET, { path: "/api/keys", cookie: t.member.cookie, headers: actingAs(id) });
    expect(seen.body.keys.map((k: { name: string }) => k.name)).toEqual([]);

    // Its calls charge the wallet and no member: the spend report shows them under no member.
    expect((await ask(service.body.secret)).status).toBe(200);
    const spend = await call(usage.GET, { path: `/api/orgs/${id}/usage`, params: { id }, cookie: t.owner.cookie });
    expect(spend.body.byMember).toEqual([expect.objectContaining({ userId: "", email: null, calls: 1 })]);

    // The admin is removed: their own key is revoked with them, the service key stays and works.
    const removed = await call(member.DELETE, {
      method: "DELETE",
      path: `/api/orgs/${id}/members/${t.admin.user.id}`,
      params: { id, userId: t.admin.user.id },
      cookie: t.owner.cookie,
    });
    expect(removed.status).toBe(200);
    expect((await ask(own.body.secret)).status).toBe(401);
    expect((await ask(service.body.secret)).status).toBe(200);

    // The organisation's model rule holds for it, in /v1/models and at the charge.
    const rule = await call(org.PATCH, {
      method: "PATCH",
      path: `/api/orgs/${id}`,
      params: { id },
      cookie: t.owner.cookie,
      body: { allowedModels: ["gpt-4o-mini"] },
    });
    expect(rule.status).toBe(200);
    const refused = await ask(service.body.secret, "gpt-4o");
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("model_not_allowed");
    const listed = await v1(modelsRoute.GET, "/v1/models", service.body.secret);
    expect(listed.body.data.map((m: { id: string }) => m.id)).toEqual(["gpt-4o-mini"]);
    expect((await ask(service.body.secret, "gpt-4o-mini")).status).toBe(200);

    // Revoked by the owner: refused at once.
    const keyId = service.body.key.id as string;
    const revoke = await call(keyRoute.DELETE, {
      method: "DELETE",
      path: `/api/keys/${keyId}`,
      params: { id: keyId },
      cookie: t.owner.cookie,
      headers: actingAs(id),
    });
    expect(revoke.status).toBe(200);
    expect((await ask(service.body.secret, "gpt-4o-mini")).status).toBe(401);
  });

  it("its charges never pass the key's own budget", async () => {
    const t = await team();
    await grant(operator.cookie, t.orgId, 100);
    const made = await call(keys.POST, {
      path: "/api/keys",
      cookie: t.owner.cookie,
      headers: actingAs(t.orgId),
      body: { name: "budgeted", service: true, budget: { credits: 20, period: "day" } },
    });
    expect(made.status).toBe(200);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await ask(made.body.secret, "gpt-4o-mini"));
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
    const last = answers.at(-1) as (typeof answers)[number];
    expect(last.status).toBe(429);
    expect(last.body.error.message).toMatch(/budget/);
    const listed = await call(keys.GET, { path: "/api/keys", cookie: t.owner.cookie, headers: actingAs(t.orgId) });
    expect(listed.body.keys[0].budget.spent).toBeLessThanOrEqual(20);
  });
});
