import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";
import { AppError } from "@/lib/errors";
import { roleAllows, type ActingAccount, type OrganisationRole, type RequiredRole } from "./roles";
import { processState } from "@/lib/process-state";
import { accountState } from "@/lib/users/account-state";

/**
 * Memberships by (organisation, person), remembered for MEMBERSHIP_TTL_MS per process so a request
 * acting as an organisation pays no query: the same bound as a locked account (lib/users/account-state.ts).
 * Every change (removal, role change, a left organisation) forgets the entry in this process at once;
 * other instances see it within the bound. A charge checks membership again in its own statement.
 */
const MEMBERSHIP_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
const known = processState("memberships", () => new Map<string, { role: OrganisationRole | null; until: number }>());
const keyOf = (organisationId: string, userId: string) => `${organisationId}:${userId}`;

/** The person's role in the organisation, or null when they are not a member (or it does not exist). */
export async function membershipOf(organisationId: string, userId: string, nowMs = Date.now()): Promise<OrganisationRole | null> {
  const key = keyOf(organisationId, userId);
  const hit = known.get(key);
  if (hit && hit.until > nowMs) return hit.role;
  const prisma = await db();
  const row = await prisma.organisationMember.findUnique({
    where: { organisationId_userId: { organisationId, userId } },
    select: { role: true },
  });
  const role = (row?.role as OrganisationRole | undefined) ?? null;
  if (known.size >= MAX_ENTRIES) known.delete(known.keys().next().value as string);
  known.set(key, { role, until: nowMs + MEMBERSHIP_TTL_MS });
  return role;
}

/**
 * Locks the organisation's row for a change to it (FOR UPDATE: changes to one organisation happen one
 * after the other); one its owner deleted is not found, so nothing joins or changes a closed one.
 */
export async function lockOrganisation(tx: Prisma.TransactionClient, organisationId: string): Promise<void> {
  const rows = await tx.$queryRaw<{ closed_at: Date | null }[]>`
    SELECT closed_at FROM organisations WHERE id = ${organisationId}::text FOR UPDATE`;
  if (!rows[0] || rows[0].closed_at) throw new AppError("not_found", "Organisation not found");
}

/** Called when a membership changes or ends: this process sees it on the next request. */
export function forgetMembership(organisationId: string, userId: string): void {
  known.delete(keyOf(organisationId, userId));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The organisation as this person may act in it: 404 when they are not a member (another
 * organisation's id is answered exactly like one that does not exist), 403 when their role is below `needed`.
 */
export async function requireMember(organisationId: string, userId: string, needed: RequiredRole = "member"): Promise<ActingAccount> {
  const role = UUID.test(organisationId) ? await membershipOf(organisationId, userId) : null;
  if (!role) throw new AppError("not_found", "Organisation not found");
  if (!roleAllows(role, needed)) throw forbiddenFor(needed);
  return { id: organisationId, kind: "organisation", role, memberId: userId };
}

/**
 * As requireMember, for a change to the organisation itself (its members, roles, caps, invitations,
 * name or owner): refused while an operator has it locked, as its wallet is (403 account_locked).
 */
export async function requireMemberToChange(organisationId: string, userId: string, needed: RequiredRole): Promise<ActingAccount> {
  const acting = await requireMember(organisationId, userId, needed);
  await requireUnlocked(organisationId);
  return acting;
}

/** 403 while an operator has the organisation locked (lib/users/account-state.ts: the same few-second bound as a locked person). */
export async function requireUnlocked(organisationId: string): Promise<void> {
  if ((await accountState(organisationId)) === "locked")
    throw new AppError(
      "forbidden",
      "This organisation is locked by the site's operator: its members, invitations and settings cannot be changed; contact support",
      { reason: "account_locked" },
    );
}

export function forbiddenFor(needed: RequiredRole): AppError {
  return new AppError(
    "forbidden",
    needed === "owner" ? "Only the organisation's owner may do this" : "Only the organisation's owner and admins may do this",
    { reason: "role_required" },
  );
}

/**
 * The account a signed-in person acts for: `wanted` names it (the active-account cookie or the
 * X-Account-Id header; absent: their own). An organisation they no longer belong to is refused (403),
 * never quietly replaced by their personal wallet (a call meant for the team is not charged to them).
 */
export async function actingAccountOf(userId: string, wanted: string | null, needed: RequiredRole): Promise<ActingAccount> {
  if (!wanted || wanted === "personal" || wanted === userId) return { id: userId, kind: "person", role: "owner", memberId: null };
  const role = UUID.test(wanted) ? await membershipOf(wanted, userId) : null;
  if (!role) {
    throw new AppError(
      "forbidden",
      "This session acts for an organisation you are not a member of; switch account (the dashboard's account switcher, or PUT /api/account/active)",
      { reason: "not_a_member" },
    );
  }
  if (!roleAllows(role, needed)) throw forbiddenFor(needed);
  return { id: wanted, kind: "organisation", role, memberId: userId };
}
