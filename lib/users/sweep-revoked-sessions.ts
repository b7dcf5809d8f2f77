import { db } from "@/lib/db/client";

/**
 * Drops signed-out session ids whose tokens have all expired (lib/auth/revoke-session.ts keeps each
 * for a token's longest life): the daily housekeeping.
 */
export async function sweepRevokedSessions(): Promise<{ deleted: number }> {
  const prisma = await db();
  const { count } = await prisma.revokedSession.deleteMany({ where: { expiresAt: { lt: new Date() } } });
  return { deleted: count };
}
