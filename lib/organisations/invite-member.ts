import { recordOrganisationEvent } from "@/lib/audit/record-organisation-event";
import { createHash, randomBytes } from "node:crypto";
import { mailedLinkBase } from "@/lib/config/public-url";
import { db } from "@/lib/db/client";
import { normalizeEmail } from "@/lib/email/normalize-email";
import { sendEmail } from "@/lib/email/send-email";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { checkWindowLimit } from "@/lib/ratelimit";
import { lockOrganisation, requireMember, requireMemberToChange } from "./membership";
import type { InviteView } from "./schemas";

/** How long an invitation works. */
export const INVITE_TTL_MS = 7 * 24 * 60 * 60_000;
/** Invitations an organisation may have waiting at once. */
export const MAX_PENDING_INVITES = 50;
/**
 * Invitation emails per hour: per organisation, per inviting person, and per address (our mailer must
 * not become a way to send many strangers mail that names what an inviter chose).
 */
export const INVITE_LIMITS = { perOrganisation: 20, perInviter: 30, perAddress: 3, windowMs: 60 * 60_000 };

async function checkInviteLimits(organisationId: string, actorId: string, email: string): Promise<void> {
  const checks: Array<[string, number, string]> = [
    [`invites:org:${organisationId}`, INVITE_LIMITS.perOrganisation, "this organisation"],
    [`invites:user:${actorId}`, INVITE_LIMITS.perInviter, "you"],
    [`invites:address:${hashInviteToken(email)}`, INVITE_LIMITS.perAddress, "this address"],
  ];
  for (const [key, limit, who] of checks) {
    const outcome = await checkWindowLimit(key, limit, INVITE_LIMITS.windowMs);
    if (outcome && !outcome.allowed) {
      const retryAfter = Math.max(1, outcome.reset - Math.floor(Date.now() / 1000));
      throw new AppError(
        "rate_limited",
        `Too many invitations for ${who} this hour (at most ${limit}); retry after ${retryAfter} seconds`,
        { headers: { "Retry-After": String(retryAfter) } },
      );
    }
  }
}

export const hashInviteToken = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function toInviteView(
  i: { id: string; email: string; role: string; expiresAt: Date; createdAt: Date; acceptedAt: Date | null; revokedAt: Date | null },
  now = new Date(),
): InviteView {
  const status = i.acceptedAt ? "accepted" : i.revokedAt ? "revoked" : i.expiresAt <= now ? "expired" : "pending";
  return { id: i.id, email: i.email, role: i.role, status, expiresAt: i.expiresAt.toISOString(), createdAt: i.createdAt.toISOString() };
}

/**
 * Invites an address (owner and admins): a random token of which only the SHA-256 is stored, mailed
 * as a link (our mailer; the link's base is NEXTAUTH_URL, never a request header) that works once,
 * for 7 days, for a session whose verified email is the invited address. A new invitation to the same
 * address replaces the waiting one. If the email cannot go out, nothing is kept (503).
 */
export async function inviteMember(
  organisationId: string,
  actorId: string,
  body: { email: string; role: "admin" | "member" },
): Promise<{ invite: InviteView }> {
  await requireMemberToChange(organisationId, actorId, "admin");
  const email = normalizeEmail(body.email);
  const prisma = await db();
  const [org, inviter, existing] = await Promise.all([
    prisma.organisation.findUniqueOrThrow({ where: { id: organisationId } }),
    prisma.user.findUnique({ where: { id: actorId }, select: { email: true, name: true } }),
    prisma.organisationMember.findFirst({ where: { organisationId, user: { email } }, select: { userId: true } }),
  ]);
  if (existing) throw new AppError("conflict", `${email} is already a member of this organisation`);
  await checkInviteLimits(organisationId, actorId, email);
  const token = randomBytes(32).toString("base64url");
  // Under the organisation row's lock: concurrent invitations to one address leave one waiting (the
  // last), and concurrent ones to many never pass MAX_PENDING_INVITES.
  const invite = await prisma.$transaction(async (tx) => {
    await lockOrganisation(tx, organisationId);
    await tx.organisationInvite.updateMany({
      where: { organisationId, email, acceptedAt: null, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    const pending = await tx.organisationInvite.count({
      where: { organisationId, acceptedAt: null, revokedAt: null, expiresAt: { gt: new Date() } },
    });
    if (pending >= MAX_PENDING_INVITES)
      throw new AppError("forbidden", `This organisation has ${MAX_PENDING_INVITES} invitations waiting; revoke some before sending more`);
    return tx.organisationInvite.create({
      data: {
        organisationId,
        email,
        role: body.role,
        tokenHash: hashInviteToken(token),
        invitedBy: actorId,
        expiresAt: new Date(Date.now() + INVITE_TTL_MS),
      },
    });
  });
  // In the fragment: no server log, trace or proxy sees the token; the page posts it when the person accepts.
  const link = new URL("/invite", `${mailedLinkBase()}/`);
  link.hash = new URLSearchParams({ token, organisation: org.name }).toString();
  const who = inviter?.name || inviter?.email || "A member";
  try {
    await sendEmail({
      to: email,
      subject: `Join ${org.name}`,
      type: "invitation",
      text: `${who} invited you to join ${org.name} as ${body.role === "admin" ? "an admin" : "a member"}.\n\nAccept with this link (it works once, for 7 days, signed in as ${email}):\n\n${link}\n\nIf you do not expect it, ignore this email.`,
      html: `<p>${escapeHtml(who)} invited you to join <strong>${escapeHtml(org.name)}</strong> as ${body.role === "admin" ? "an admin" : "a member"}.</p><p><a href="${link.toString().replace(/&/g, "&amp;")}">Accept the invitation</a> (it works once, for 7 days, signed in as ${escapeHtml(email)}).</p><p>If you do not expect it, ignore this email.</p>`,
    });
  } catch (error) {
    await prisma.organisationInvite.delete({ where: { id: invite.id } }).catch(() => undefined);
    throw new AppError(
      "unavailable",
      "The invitation email could not be sent; try again in a few minutes, and if it keeps failing, contact the site's operator",
      {
        reason: "mail_unavailable",
        cause: error,
      },
    );
  }
  await recordOrganisationEvent(null, {
    accountId: organisationId,
    actorId,
    action: "invite.sent",
    targetType: "invite",
    targetId: invite.id,
    details: { email, role: body.role },
  });
  log.info("organisation invite sent", { organisationId, inviteId: invite.id, by: actorId });
  return { invite: toInviteView(invite) };
}

/** An organisation's invitations, newest first (owner and admins). */
export async function listInvites(organisationId: string, actorId: string): Promise<{ invites: InviteView[] }> {
  await requireMember(organisationId, actorId, "admin");
  const prisma = await db();
  const rows = await prisma.organisationInvite.findMany({
    where: { organisationId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 200,
  });
  const now = new Date();
  return { invites: rows.map((r) => toInviteView(r, now)) };
}

/** Withdraws a waiting invitation (owner and admins); its link stops working. Another organisation's invitation: 404. */
export async function revokeInvite(organisationId: string, actorId: string, inviteId: string): Promise<{ invite: InviteView }> {
  await requireMemberToChange(organisationId, actorId, "admin");
  const prisma = await db();
  const found = /^[0-9a-f-]{36}$/i.test(inviteId)
    ? await prisma.organisationInvite.findFirst({ where: { id: inviteId, organisationId } })
    : null;
  if (!found) throw new AppError("not_found", "Invitation not found");
  if (found.acceptedAt || found.revokedAt) return { invite: toInviteView(found) };
  const invite = await prisma.$transaction(async (tx) => {
    const withdrawn = await tx.organisationInvite.update({ where: { id: inviteId }, data: { revokedAt: new Date() } });
    await recordOrganisationEvent(tx, {
      accountId: organisationId,
      actorId,
      action: "invite.withdrawn",
      targetType: "invite",
      targetId: inviteId,
      details: { email: found.email, role: found.role },
    });
    return withdrawn;
  });
  return { invite: toInviteView(invite) };
}
