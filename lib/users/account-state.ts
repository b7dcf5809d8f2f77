import { db } from "@/lib/db/client";

export type AccountState = "active" | "locked";

/**
 * Whether a session's user still exists, and whether their account is locked (a deleted user's JWT
 * stays valid until it expires; a lock does not end a session by itself). Checked once per request
 * by the route wrapper: an answer is remembered for a few seconds per process so hot paths pay no
 * query, and deleting, locking or unlocking a user forgets it at once in this process (other
 * instances notice within STATE_TTL_MS).
 */
const STATE_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
const known = new Map<string, { state: AccountState; until: number }>();

/** The account's state, or null when no such user exists. */
export async function accountState(userId: string, nowMs = Date.now()): Promise<AccountState | null> {
  const hit = known.get(userId);
  if (hit && hit.until > nowMs) return hit.state;
  const prisma = await db();
  const row = await prisma.user.findUnique({ where: { id: userId }, select: { lockedAt: true } });
  if (!row) {
    known.delete(userId);
    return null;
  }
  const state: AccountState = row.lockedAt ? "locked" : "active";
  if (known.size >= MAX_ENTRIES) known.delete(known.keys().next().value as string);
  known.set(userId, { state, until: nowMs + STATE_TTL_MS });
  return state;
}

/** Called when a user is deleted, locked or unlocked: this process sees the change on the next request. */
export function forgetUser(userId: string): void {
  known.delete(userId);
}
