import { changesOf } from "@/lib/audit/changes-of";
import { recordOrganisationEvent } from "@/lib/audit/record-organisation-event";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { deliverSoon } from "@/lib/outbound/deliver-outbound";
import { emitEvent } from "@/lib/outbound/emit-event";
import { forgetModelRules } from "@/lib/credits";
import { forgetMemberCaps } from "@/lib/spend-alerts/member-cap-alerts";
import { checkedAllowedModels } from "./check-allowed-models";
import { forgetMembership, lockOrganisation, requireMember, requireMemberToChange } from "./membership";
import { toMemberView } from "./list-members";

/**
 * Changes a member's role or caps (owner and admins). The owner's role moves only by a transfer; an
 * admin cannot change the owner at all. A cap applies to the next charge on every instance (it is
 * read in the charge's own statement); a lower cap than what was spent stops further charges in the window.
 */
export async function updateMember(
  organisationId: string,
  actorId: string,
  memberId: string,
  body: { role?: "admin" | "member"; dailyCap?: number | null; monthlyCap?: number | null; allowedModels?: string[] },
) {
  await requireMemberToChange(organisationId, actorId, "admin");
  const allowedModels = body.allowedModels !== undefined ? checkedAllowedModels(body.allowedModels) : undefined;
  const prisma = await db();
  const updated = await prisma.$transaction(async (tx) => {
    await lockOrganisation(tx, organisationId);
    const target = await tx.organisationMember.findUnique({ where: { organisationId_userId: { organisationId, userId: memberId } } });
    if (!target) throw new AppError("not_found", "Member not found");
    if (target.role === "owner" && body.role !== undefined) {
      throw new AppError("conflict", "The owner's role changes only by a transfer of ownership (POST /api/orgs/{id}/transfer)");
    }
    if (target.role === "owner" && actorId !== memberId)
      throw new AppError("forbidden", "Only the owner may change the owner's caps", { reason: "role_required" });
    const after = await tx.organisationMember.update({
      where: { organisationId_userId: { organisationId, userId: memberId } },
      data: {
        ...(body.role !== undefined ? { role: body.role } : {}),
        ...(body.dailyCap !== undefined ? { dailyCap: body.dailyCap } : {}),
        ...(body.monthlyCap !== undefined ? { monthlyCap: body.monthlyCap } : {}),
        ...(allowedModels !== undefined ? { allowedModels } : {}),
      },
      include: { user: { select: { email: true, name: true } } },
    });
    await recordOrganisationEvent(tx, {
      accountId: organisationId,
      actorId,
      action: "member.updated",
      targetType: "member",
      targetId: memberId,
      details: { email: after.user.email, ...changesOf(target, after, ["role", "dailyCap", "monthlyCap", "allowedModels"]) },
    });
    return after;
  });
  forgetMembership(organisationId, memberId);
  if (allowedModels !== undefined) forgetModelRules(organisationId);
  if (body.dailyCap !== undefined || body.monthlyCap !== undefined) forgetMemberCaps(organisationId, memberId);
  log.info("organisation member updated", {
    organisationId,
    memberId,
    by: actorId,
    role: body.role,
    dailyCap: body.dailyCap,
    monthlyCap: body.monthlyCap,
    allowedModels,
  });
  return { member: toMemberView(updated, true) };
}

/**
 * Ends a membership: an admin removes a member or another admin (never the owner); anyone leaves
 * (the owner only after transferring ownership: an organisation always has exactly one owner). The
 * keys the person made for the organisation (not its service keys, which belong to it), and the invitations they sent that are still waiting,
 * are revoked in the same transaction; their sessions lose the organisation at once here and on every
 * instance within the membership bound, and a charge in flight can no longer be reserved (the charge
 * statement checks membership, and a revoked key's charge is refused by the statement too).
 */
export async function removeMember(organisationId: string, actorId: string, memberId: string): Promise<{ removed: true }> {
  const leaving = actorId === memberId;
  // Anyone may leave, even a locked organisation; removing someone else is a change it refuses while locked.
  if (leaving) await requireMember(organisationId, actorId, "member");
  else await requireMemberToChange(organisationId, actorId, "admin");
  const prisma = await db();
  const revokedKeys = await prisma.$transaction(async (tx) => {
    await lockOrganisation(tx, organisationId);
    const target = await tx.organisationMember.findUnique({ where: { organisationId_userId: { organisationId, userId: memberId } } });
    if (!target) throw new AppError("not_found", "Member not found");
    if (target.role === "owner") {
      throw leaving
        ? new AppError("conflict", "The owner cannot leave: transfer ownership to another member first (POST /api/orgs/{id}/transfer)")
        : new AppError("forbidden", "The owner cannot be removed", { reason: "role_required" });
    }
    const keys = await tx.apiKey.findMany({
      // Their service keys belong to the organisation and stay.
      where: { userId: organisationId, createdBy: memberId, service: false, revokedAt: null },
      select: { id: true, name: true },
    });
    await tx.apiKey.updateMany({
      where: { id: { in: keys.map((k) => k.id) } },
      data: { revokedAt: new Date(), revokedBy: leaving ? "member_left" : "member_removed" },
    });
    for (const k of keys) {
      await emitEvent(tx, {
        accountId: organisationId,
        type: "key.revoked",
        data: { keyId: k.id, name: k.name, by: leaving ? "member_left" : "member_removed" },
      });
      await recordOrganisationEvent(tx, {
        accountId: organisationId,
        actorId,
        action: "key.revoked",
        targetType: "key",
        targetId: k.id,
        details: { name: k.name, by: leaving ? "member_left" : "member_removed", maker: memberId },
      });
    }
    // The invitations they sent and nobody accepted yet stop working with them.
    await tx.organisationInvite.updateMany({
      where: { organisationId, invitedBy: memberId, acceptedAt: null, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    // Their caps and this period's spend are kept: re-admitted, they start where they left off.
    const kept = {
      dailyCap: target.dailyCap,
      monthlyCap: target.monthlyCap,
      dayStart: target.dayStart,
      daySpent: target.daySpent,
      monthStart: target.monthStart,
      monthSpent: target.monthSpent,
      allowedModels: target.allowedModels,
      leftAt: new Date(),
    };
    await tx.organisationFormerMember.upsert({
      where: { organisationId_userId: { organisationId, userId: memberId } },
      create: { organisationId, userId: memberId, ...kept },
      update: kept,
    });
    await tx.organisationMember.delete({ where: { organisationId_userId: { organisationId, userId: memberId } } });
    await recordOrganisationEvent(tx, {
      accountId: organisationId,
      actorId,
      action: leaving ? "member.left" : "member.removed",
      targetType: "member",
      targetId: memberId,
      details: { role: target.role, keysRevoked: keys.length },
    });
    return keys.map((k) => k.id);
  });
  if (revokedKeys.length) deliverSoon();
  // The keys' cached copies need no forgetting: a key of an organisation works only while its maker is a
  // member, and its charges are refused by the charge statement once it is revoked (reserve_credits_for_key).
  forgetMembership(organisationId, memberId);
  log.info(leaving ? "organisation member left" : "organisation member removed", {
    organisationId,
    memberId,
    by: actorId,
    keysRevoked: revokedKeys.length,
  });
  return { removed: true };
}
