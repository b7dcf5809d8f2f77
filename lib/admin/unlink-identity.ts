import { db } from "@/lib/db/client";
import { notFound, requireUuids } from "@/lib/errors";
import { forgetUser } from "@/lib/users/account-state";
import { recordAdminAction } from "./record-admin-action";
import type { Operator } from "@/lib/auth/resolve-operator";


/**
 * Unlinks a sign-in identity (an OAuth/OIDC account) from a user and ends every session of that user
 * signed in until now: a session carries no trace of the identity that opened it, and the likely
 * reason to unlink is that the identity was not theirs. The owner signs in again with what is left.
 * The identity, the revocation and the audit row commit together.
 */
export async function unlinkIdentity(input: { operator: Operator; userId: string; identityId: string; reason: string; requestId: string | null }) {
  requireUuids("Identity", input.userId, input.identityId);
  const prisma = await db();
  const result = await prisma.$transaction(async (tx) => {
    const identity = await tx.account.findFirst({ where: { id: input.identityId, userId: input.userId } });
    if (!identity) throw notFound("Identity");
    await tx.account.delete({ where: { id: identity.id } });
    const { sessionsRevokedAt } = await tx.user.update({
      where: { id: input.userId },
      data: { sessionsRevokedAt: new Date() },
      select: { sessionsRevokedAt: true },
    });
    await recordAdminAction(tx, {
      operator: input.operator,
      action: "user.identity.unlink",
      targetType: "user",
      targetId: input.userId,
      reason: input.reason,
      requestId: input.requestId,
      details: { provider: identity.provider, providerAccountId: identity.providerAccountId, linkedAt: identity.createdAt.toISOString() },
    });
    return { provider: identity.provider, sessionsRevokedAt: sessionsRevokedAt as Date };
  });
  forgetUser(input.userId);
  return { unlinked: true, provider: result.provider, sessionsRevokedAt: result.sessionsRevokedAt.toISOString() };
}
