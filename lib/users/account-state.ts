import { db } from "@/lib/db/client";

export type AccountState = "active" | "locked";

/**
 * Whether a session's user still exists, whether their account is locked (a deleted user's JWT
 * stays valid until it expires; a lock does not end a session by itself), and whether the session
 * was signed in before the user's sessions were revoked (an operator unlinking a sign-in identity).
 * Checked once per request by the route wrapper: an answer is remembered for a few seconds per
 * process so hot paths pay no query, and deleting, locking, unlocking or revoking forgets it at once
 * in this process (other instances notice within STATE_TTL_MS).
 */
const STATE_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
// On globalThis: Next bundles pages and route handlers separately, each with its own copy of this
// module; one map per process lets a lock through the API end the console's rendering at once.
const shared = globalThis as unknown as { __accountStates?: Map<string, { state: AccountState; revokedAt: number | null; until: number }> };
const known = (shared.__accountStates ??= new Map());

/**
 * The account's state for a session signed in at `signedInAt` (epoch milliseconds; unknown: not checked),
 * or null when no such user exists or the session was revoked.
 */
export async function accountState(userId: string, signedInAt?: number | null, nowMs = Date.now()): Promise<AccountState | null> {
  let hit = known.get(userId);
  if (!hit || hit.until <= nowMs) {
    const prisma = await db();
    const row = await prisma.user.findUnique({ where: { id: userId }, select: { lockedAt: true, sessionsRevokedAt: true } });
    if (!row) {
      known.delete(userId);
      return null;
    }
    hit = { state: row.lockedAt ? "locked" : "active", revokedAt: row.sessionsRevokedAt?.getTime() ?? null, until: nowMs + STATE_TTL_MS };
    if (known.size >= MAX_ENTRIES) known.delete(known.keys().next().value as string);
    known.set(userId, hit);
  }
  if (hit.revokedAt !== null && typeof signedInAt === "number" && signedInAt <= hit.revokedAt) return null;
  return hit.state;
}

/** Called when a user is deleted, locked, unlocked or their sessions revoked: this process sees it on the next request. */
export function forgetUser(userId: string): void {
  known.delete(userId);
}
