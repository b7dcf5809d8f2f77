import { recordOrganisationEvent } from "@/lib/audit/record-organisation-event";
import { db } from "@/lib/db/client";
import { notFound, requireUuids } from "@/lib/errors";
import { forgetUser } from "@/lib/users/account-state";
import { recordAdminAction } from "./record-admin-action";
import type { Operator } from "@/lib/auth/resolve-operator";

/** Prefix of an operator's lock reason: the identity provider's unlock never lifts an operator's lock. */
export const OPERATOR_LOCK_PREFIX = "locked by an operator: ";

/**
 * Locks or unlocks a user. A locked account cannot sign in, its sessions may read but not write or
 * be charged, and its API keys are suspended (every /v1 call answers 403; they are not revoked, so an
 * unlock gives them back), from the next request on this instance and within seconds on the others. The change and its audit row commit together; asking for the state the user
 * is already in changes nothing and writes no audit row.
 */
export async function setUserLock(input: {
  operator: Operator;
  userId: string;
  locked: boolean;
  reason: string;
  requestId: string | null;
}) {
  requireUuids("User", input.userId);
  const prisma = await db();
  const result = await prisma.$transaction(async (tx) => {
    const [user] = await tx.$queryRaw<{ locked_at: Date | null; lock_reason: string | null }[]>`
      SELECT locked_at, lock_reason FROM users WHERE id = ${input.userId}::text FOR UPDATE`;
    if (!user) throw notFound("User");
    if (Boolean(user.locked_at) === input.locked) return { changed: false, lockedAt: user.locked_at, lockReason: user.lock_reason };
    const data = input.locked
      ? { lockedAt: new Date(), lockReason: `${OPERATOR_LOCK_PREFIX}${input.reason}` }
      : { lockedAt: null, lockReason: null };
    await tx.user.update({ where: { id: input.userId }, data });
    await recordAdminAction(tx, {
      operator: input.operator,
      action: input.locked ? "user.lock" : "user.unlock",
      targetType: "user",
      targetId: input.userId,
      reason: input.reason,
      requestId: input.requestId,
      details: input.locked ? undefined : { previousReason: user.lock_reason },
    });
    await recordOrganisationEvent(tx, {
      accountId: input.userId,
      actorId: null,
      action: input.locked ? "organisation.locked" : "organisation.unlocked",
      targetType: "organisation",
      targetId: input.userId,
      details: { by: "operator", reason: input.reason },
    });
    return { changed: true, ...data };
  });
  forgetUser(input.userId);
  return {
    changed: result.changed,
    locked: result.lockedAt !== null,
    lockedAt: result.lockedAt?.toISOString() ?? null,
    lockReason: result.lockReason,
  };
}
