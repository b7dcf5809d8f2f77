import { recordOrganisationEvent } from "@/lib/audit/record-organisation-event";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { forgetMembership, lockOrganisation, requireMemberToChange } from "./membership";
import { toMemberView } from "./list-members";

/** The owner hands the organisation to another member, who becomes its owner; the former owner stays as an admin. */
export async function transferOwnership(organisationId: string, ownerId: string, newOwnerId: string) {
  await requireMemberToChange(organisationId, ownerId, "owner");
  if (newOwnerId === ownerId)
    throw new AppError("validation_failed", "Invalid body: userId: you are already the owner", { param: "userId" });
  const prisma = await db();
  const member = await prisma.$transaction(async (tx) => {
    await lockOrganisation(tx, organisationId);
    const current = await tx.organisationMember.findUnique({ where: { organisationId_userId: { organisationId, userId: ownerId } } });
    if (current?.role !== "owner")
      throw new AppError("forbidden", "Only the organisation's owner may do this", { reason: "role_required" });
    const target = await tx.organisationMember.findUnique({ where: { organisationId_userId: { organisationId, userId: newOwnerId } } });
    if (!target) throw new AppError("not_found", "Member not found");
    await tx.organisationMember.update({ where: { organisationId_userId: { organisationId, userId: ownerId } }, data: { role: "admin" } });
    await recordOrganisationEvent(tx, {
      accountId: organisationId,
      actorId: ownerId,
      action: "ownership.transferred",
      targetType: "member",
      targetId: newOwnerId,
      details: { from: ownerId, to: newOwnerId },
    });
    return tx.organisationMember.update({
      where: { organisationId_userId: { organisationId, userId: newOwnerId } },
      data: { role: "owner" },
      include: { user: { select: { email: true, name: true } } },
    });
  });
  forgetMembership(organisationId, ownerId);
  forgetMembership(organisationId, newOwnerId);
  log.info("organisation ownership transferred", { organisationId, from: ownerId, to: newOwnerId });
  return { member: toMemberView(member, true) };
}
