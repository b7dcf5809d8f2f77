import { recordOrganisationEvent } from "@/lib/audit/record-organisation-event";
import { db } from "@/lib/db/client";
import { normalizeEmail } from "@/lib/email/normalize-email";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { hashInviteToken } from "./invite-member";
import { forgetMembership, lockOrganisation, requireUnlocked } from "./membership";
import { toOrganisationView } from "./views";
import type { OrganisationView } from "./schemas";

/** The session accepting an invitation: who they are, and whether their sign-in vouched for the email. */
export interface InviteAcceptor {
  userId: string;
  email: string | null;
  emailVerified: boolean;
}

const gone = () =>
  new AppError("not_found", "This invitation is not valid: it was used, withdrawn or replaced, or it expired; ask for a new one");

/**
 * Spends an invitation: once, before it expires, for a session whose verified email is the invited
 * address (another address, or an unverified one, is refused and the invitation stays usable for its
 * owner). Joining and spending the token are one transaction.
 */
export async function acceptInvite(token: string, who: InviteAcceptor): Promise<{ organisation: OrganisationView }> {
  const prisma = await db();
  const invite = await prisma.organisationInvite.findUnique({ where: { tokenHash: hashInviteToken(token) } });
  const now = new Date();
  if (!invite || invite.acceptedAt || invite.revokedAt || invite.expiresAt <= now) throw gone();
  if (!who.email || normalizeEmail(who.email) !== invite.email) {
    throw new AppError("forbidden", `This invitation is for ${invite.email}: sign in with that address to accept it`, {
      reason: "wrong_account",
    });
  }
  if (!who.emailVerified) {
    throw new AppError(
      "forbidden",
      `Sign in with a method that verifies ${invite.email} (the emailed link, or a provider that confirms the address) to accept`,
      { reason: "email_unverified" },
    );
  }
  // Nobody joins an organisation an operator has locked (the invitation stays usable after the unlock).
  await requireUnlocked(invite.organisationId);
  const org = await prisma.$transaction(async (tx) => {
    // One its owner deleted takes nobody in (its invitations were voided with it, under this lock).
    await lockOrganisation(tx, invite.organisationId);
    const { count } = await tx.organisationInvite.updateMany({
      where: { id: invite.id, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
      data: { acceptedAt: now, acceptedBy: who.userId },
    });
    if (count !== 1) throw gone();
    const existing = await tx.organisationMember.findUnique({
      where: { organisationId_userId: { organisationId: invite.organisationId, userId: who.userId } },
    });
    if (!existing) {
      // A former member comes back with the caps and this period's spend they left with (the charge
      // statement rolls the windows over when a new day or month has begun).
      const former = await tx.organisationFormerMember.findUnique({
        where: { organisationId_userId: { organisationId: invite.organisationId, userId: who.userId } },
      });
      await tx.organisationMember.create({
        data: {
          organisationId: invite.organisationId,
          userId: who.userId,
          role: invite.role,
          ...(former
            ? {
                dailyCap: former.dailyCap,
                monthlyCap: former.monthlyCap,
                dayStart: former.dayStart,
                daySpent: former.daySpent,
                monthStart: former.monthStart,
                monthSpent: former.monthSpent,
                allowedModels: former.allowedModels,
              }
            : {}),
        },
      });
      if (former)
        await tx.organisationFormerMember.delete({
          where: { organisationId_userId: { organisationId: invite.organisationId, userId: who.userId } },
        });
      await recordOrganisationEvent(tx, {
        accountId: invite.organisationId,
        actorId: who.userId,
        action: "member.joined",
        targetType: "member",
        targetId: who.userId,
        details: { role: invite.role, inviteId: invite.id, invitedBy: invite.invitedBy, capsKept: Boolean(former) },
      });
    }
    const o = await tx.organisation.findUniqueOrThrow({ where: { id: invite.organisationId } });
    return { o, role: existing?.role ?? invite.role };
  });
  forgetMembership(invite.organisationId, who.userId);
  log.info("organisation invite accepted", { organisationId: invite.organisationId, inviteId: invite.id, userId: who.userId });
  return { organisation: toOrganisationView(org.o, org.role) };
}
