import { db } from "@/lib/db/client";

/**
 * Whether a session's user still exists (a deleted user's JWT stays valid until it expires). Checked
 * once per request by the route wrapper; an answer "exists" is remembered for a few seconds per
 * process so hot paths pay no query, and deleting a user forgets it at once in this process (other
 * instances notice within EXISTS_TTL_MS).
 */
const EXISTS_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
const known = new Map<string, number>();

export async function userExists(userId: string, nowMs = Date.now()): Promise<boolean> {
  const until = known.get(userId);
  if (until !== undefined && until > nowMs) return true;
  const prisma = await db();
  const row = await prisma.user.findUnique({ where: { id: userId }, select: { id: true } });
  if (!row) {
    known.delete(userId);
    return false;
  }
  if (known.size >= MAX_ENTRIES) known.delete(known.keys().next().value as string);
  known.set(userId, nowMs + EXISTS_TTL_MS);
  return true;
}

/** Called when a user is deleted: the next request of their session is refused at once. */
export function forgetUser(userId: string): void {
  known.delete(userId);
}
