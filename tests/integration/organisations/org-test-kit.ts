import { afterAll, beforeAll } from "vitest";
import { setEnv } from "@/tests/helpers/env";
import * as orgs from "@/app/api/orgs/route";
import * as invites from "@/app/api/orgs/[id]/invites/route";
import * as accept from "@/app/api/invites/accept/route";
import * as adjust from "@/app/api/admin/users/[id]/credits/route";
import { listLocalMail } from "@/lib/email/local-mailbox";
import { call, sessionCookie, signIn } from "@/tests/helpers/http";

/** Shared steps of the organisation tests: an organisation with members of each role, made through the API. */
export interface Person {
  user: { id: string; email: string | null };
  cookie: string;
}

let counter = 0;
const unique = () => `${Date.now().toString(36)}${++counter}`;

export async function person(prefix = "org-person"): Promise<Person> {
  const { user, cookie } = await signIn(`${prefix}-${unique()}@example.com`);
  return { user, cookie };
}

/** The token of the newest invitation mailed to `email` (from the link's fragment). */
export async function mailedInviteToken(email: string): Promise<string> {
  const mail = (await listLocalMail()).find((m) => m.to === email && m.subject.startsWith("Join "));
  if (!mail) throw new Error(`no invitation mailed to ${email}`);
  const link = /https?:\/\/\S+\/invite#\S+/.exec(mail.text ?? "")?.[0];
  if (!link) throw new Error("no invitation link in the mail");
  const token = new URLSearchParams(new URL(link).hash.slice(1)).get("token");
  if (!token) throw new Error("no token in the invitation link");
  return token;
}

/** Invites `who` through the API as `by` and accepts through the emailed link's token. */
export async function join(orgId: string, by: Person, who: Person, role: "admin" | "member" = "member"): Promise<void> {
  const sent = await call(invites.POST, {
    path: `/api/orgs/${orgId}/invites`,
    params: { id: orgId },
    cookie: by.cookie,
    body: { email: who.user.email, role },
  });
  if (sent.status !== 200) throw new Error(`invite failed: ${sent.status} ${sent.text}`);
  const token = await mailedInviteToken(who.user.email as string);
  const accepted = await call(accept.POST, { path: "/api/invites/accept", cookie: who.cookie, body: { token } });
  if (accepted.status !== 200) throw new Error(`accept failed: ${accepted.status} ${accepted.text}`);
}

/** An organisation with an owner, an admin and a member, and an outsider who belongs to none. */
export async function team() {
  const owner = await person("owner");
  const admin = await person("admin");
  const member = await person("member");
  const outsider = await person("outsider");
  const created = await call(orgs.POST, { path: "/api/orgs", cookie: owner.cookie, body: { name: "Acme Research" } });
  if (created.status !== 200) throw new Error(`organisation not created: ${created.status} ${created.text}`);
  const orgId = created.body.organisation.id as string;
  await join(orgId, owner, admin, "admin");
  await join(orgId, owner, member, "member");
  return { orgId, owner, admin, member, outsider };
}

/** An operator session (ADMIN_EMAILS must name the address). */
export async function operatorCookie(email: string): Promise<string> {
  const { user } = await signIn(email);
  return sessionCookie(user, { authMethod: "github", emailVerified: true });
}

/** An operator for a test file: ADMIN_EMAILS names `email` while it runs; `cookie` is set before the first test. */
export function useOperator(email: string): { cookie: string } {
  const operator = { cookie: "" };
  let restore = () => {};
  beforeAll(async () => {
    restore = setEnv({ ADMIN_EMAILS: email });
    operator.cookie = await operatorCookie(email);
  });
  afterAll(() => restore());
  return operator;
}

/** Credits an account through the operator API (an audited `adjustment` ledger row). */
export async function grant(operator: string, accountId: string, amount: number): Promise<void> {
  const res = await call(adjust.POST, {
    path: `/api/admin/users/${accountId}/credits`,
    params: { id: accountId },
    cookie: operator,
    body: { amount, bucket: "subscription", reason: "test grant", idempotencyKey: `grant-${unique()}` },
  });
  if (res.status !== 200) throw new Error(`grant failed: ${res.status} ${res.text}`);
}

/** The headers that make a session act for an account. */
export const actingAs = (accountId: string) => ({ "x-account-id": accountId });
