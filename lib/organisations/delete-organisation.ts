import { recordOrganisationEvent } from "@/lib/audit/record-organisation-event";
import { cancelUserSubscriptions } from "@/lib/billing/subscriptions/cancel-user-subscriptions";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { forgetMembership, lockOrganisation, requireMemberToChange } from "./membership";

/**
 * DELETE /api/orgs/{id}: the owner closes the organisation, confirming with its slug. Its running
 * subscription is cancelled at the provider first (a provider that fails changes nothing here); then,
 * in one transaction under the organisation's row lock: every key revoked, every waiting invitation
 * voided, auto-recharge and webhook endpoints turned off, every member detached (a charge in flight
 * can no longer be reserved: the charge statement checks membership and keys), and the organisation
 * marked closed with its slug freed. The account row and its whole ledger stay: the remaining balance
 * is refunded to nobody, kept on the ledger of a closed account.
 */
export async function deleteOrganisation(organisationId: string, userId: string, confirm: string) {
  await requireMemberToChange(organisationId, userId, "owner");
  const prisma = await db();
  const org = await prisma.organisation.findUnique({ where: { id: organisationId }, select: { slug: true, name: true } });
  if (!org) throw new AppError("not_found", "Organisation not found");
  if (confirm !== org.slug) {
    throw new AppError("validation_failed", `Invalid body: confirm: type the organisation's slug (${org.slug}) to delete it`, {
      param: "confirm",
    });
  }
  await cancelUserSubscriptions(organisationId);
  const now = new Date();
  const closed = await prisma.$transaction(async (tx) => {
    await lockOrganisation(tx, organisationId);
    const owner = await tx.organisationMember.findUnique({ where: { organisationId_userId: { organisationId, userId } } });
    if (owner?.role !== "owner") throw new AppError("forbidden", "Only the organisation's owner may do this", { reason: "role_required" });
    const keys = await tx.apiKey.findMany({ where: { userId: organisationId, revokedAt: null }, select: { id: true } });
    await tx.apiKey.updateMany({
      where: { id: { in: keys.map((k) => k.id) } },
      data: { revokedAt: now, revokedBy: "organisation_deleted" },
    });
    const invites = await tx.organisationInvite.updateMany({
      where: { organisationId, acceptedAt: null, revokedAt: null },
      data: { revokedAt: now },
    });
    await tx.autoRechargeSettings.updateMany({ where: { accountId: organisationId }, data: { enabled: false, updatedAt: now } });
    await tx.webhookEndpoint.updateMany({
      where: { accountId: organisationId, enabled: true },
      data: { enabled: false, disabledAt: now, disabledReason: "organisation deleted" },
    });
    const members = await tx.organisationMember.findMany({ where: { organisationId }, select: { userId: true } });
    await tx.organisationMember.deleteMany({ where: { organisationId } });
    await tx.organisationFormerMember.deleteMany({ where: { organisationId } });
    await tx.organisation.update({
      where: { id: organisationId },
      data: { closedAt: now, closedBy: userId, slug: `closed-${organisationId}` },
    });
    await recordOrganisationEvent(tx, {
      accountId: organisationId,
      actorId: userId,
      action: "organisation.deleted",
      targetType: "organisation",
      targetId: organisationId,
      details: { slug: org.slug, membersDetached: members.length, keysRevoked: keys.length, invitesVoided: invites.count },
    });
    return { keys: keys.map((k) => k.id), invites: invites.count, members: members.map((m) => m.userId) };
  });
  for (const member of closed.members) forgetMembership(organisationId, member);
  // The keys' cached copies need no forgetting: a revoked key's charge is refused by the charge statement.
  const balance = await prisma.creditBalance.findUnique({ where: { userId: organisationId }, select: { subscriptionCredits: true } });
  log.info("organisation deleted by its owner (closed; its ledger kept)", {
    organisationId,
    by: userId,
    members: closed.members.length,
    keysRevoked: closed.keys.length,
    invitesVoided: closed.invites,
    subscriptionCreditsLeft: balance?.subscriptionCredits ?? 0,
  });
  return {
    deleted: true as const,
    id: organisationId,
    closedAt: now.toISOString(),
    membersDetached: closed.members.length,
    keysRevoked: closed.keys.length,
    invitesVoided: closed.invites,
  };
}
