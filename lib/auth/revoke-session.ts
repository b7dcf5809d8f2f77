import { db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { forgetUser } from "@/lib/users/account-state";

/** How long a session lasts (next-auth's maxAge): a revoked session's id is kept this long. */
export const SESSION_MAX_AGE_S = 30 * 24 * 60 * 60;

/**
 * Ends one session server-side (signing out): its id goes to revoked_sessions until every token of it
 * has expired, so a copy of its cookie (another tab, a stolen token) is refused from the next request
 * on this instance and within seconds on the others. A token from before sessions had ids cannot be
 * told from the user's other sessions: signing it out ends them all (the safe side).
 */
export async function revokeSession(input: { userId: string; sessionId: string | null }): Promise<void> {
  if (!input.sessionId) {
    await signOutEverywhere(input.userId);
    log.info("a session without an id signed out: all of the user's sessions ended", { userId: input.userId });
    return;
  }
  const prisma = await db();
  const expiresAt = new Date(Date.now() + SESSION_MAX_AGE_S * 1000);
  // A user deleted meanwhile has nothing left to revoke (the row's foreign key would refuse it).
  await prisma.$executeRaw`
    INSERT INTO revoked_sessions (sid, user_id, expires_at)
    SELECT ${input.sessionId}, id, ${expiresAt} FROM users WHERE id = ${input.userId}
    ON CONFLICT (sid) DO NOTHING`;
  forgetUser(input.userId);
}

/** Ends every session of a user signed in until now ("sign out everywhere"): API keys are not affected. */
export async function signOutEverywhere(userId: string): Promise<{ sessionsRevokedAt: string }> {
  const prisma = await db();
  const at = new Date();
  await prisma.user.updateMany({ where: { id: userId }, data: { sessionsRevokedAt: at } });
  forgetUser(userId);
  return { sessionsRevokedAt: at.toISOString() };
}
