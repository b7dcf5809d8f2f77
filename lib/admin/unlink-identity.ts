import { forgetApiKey } from "@/lib/api-keys/authenticate-api-key";
import { db } from "@/lib/db/client";
import { notFound, requireUuids } from "@/lib/errors";
import { forgetUser } from "@/lib/users/account-state";
import { recordAdminAction } from "./record-admin-action";
import type { Operator } from "@/lib/auth/resolve-operator";

/**
 * Unlinks a sign-in identity (an OAuth/OIDC account) from a user, ends every session of that user
 * signed in until now and revokes their active API keys: neither a session nor a key carries a trace
 * of the identity that opened or made it, and the likely reason to unlink is that the identity was not
 * theirs (whoever held it may have made keys). The owner signs in again with what is left and makes
 * new keys. The identity, the revocations and the audit row commit together.
 */
export async function unlinkIdentity(input: {
  operator: Operator;
  userId: string;
  identityId: string;
  reason: string;
  requestId: string | null;
}) {
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
    const keys = await tx.apiKey.findMany({ where: { userId: input.userId, revokedAt: null }, select: { id: true } });
    if (keys.length)
      await tx.apiKey.updateMany({ where: { id: { in: keys.map((k) => k.id) } }, data: { revokedAt: sessionsRevokedAt as Date } });
    await recordAdminAction(tx, {
      operator: input.operator,
      action: "user.identity.unlink",
      targetType: "user",
      targetId: input.userId,
      reason: input.reason,
      requestId: input.requestId,
      details: {
        provider: identity.provider,
        providerAccountId: identity.providerAccountId,
        linkedAt: identity.createdAt.toISOString(),
        apiKeysRevoked: keys.length,
      },
    });
    return { provider: identity.provider, sessionsRevokedAt: sessionsRevokedAt as Date, keyIds: keys.map((k) => k.id) };
  });
  forgetUser(input.userId);
  for (const id of result.keyIds) forgetApiKey(id);
  return {
    unlinked: true,
    provider: result.provider,
    sessionsRevokedAt: result.sessionsRevokedAt.toISOString(),
    apiKeysRevoked: result.keyIds.length,
  };
}
