import { db } from "@/lib/db/client";
import { processState } from "@/lib/process-state";

export type AccountState = "active" | "locked";

/**
 * Whether a session's user still exists, whether their account is locked (a deleted user's JWT
 * stays valid until it expires; a lock does not end a session by itself), whether the session was
 * signed in before the user's sessions were all revoked ("sign out everywhere", an operator unlinking
 * a sign-in identity), and whether this very session was signed out (its id in revoked_sessions).
 * Checked once per request by the route wrapper: an answer is remembered for a few seconds per
 * process so hot paths pay no query, and deleting, locking, unlocking or revoking forgets it at once
 * in this process (other instances notice within STATE_TTL_MS).
 */
const STATE_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
interface KnownState {
  state: AccountState;
  revokedAt: number | null;
  revokedSessions: Set<string>;
  until: number;
}
// The process's one map (lib/process-state.ts): Next bundles pages and route handlers separately, each with its own copy of this
// module; one map per process lets a lock through the API end the console's rendering at once.
const known = processState("accountStates", () => new Map<string, KnownState>());

/** A session as its state is checked: when it signed in (epoch ms) and its id; unknown fields are not checked. */
export interface SessionMark {
  signedInAt?: number | null;
  sessionId?: string | null;
}

/**
 * The account's state for a session (`session`: when it signed in and its id; absent: the account
 * alone, as for an API key), or null when no such user exists or the session was revoked.
 */
export async function accountState(userId: string, session?: SessionMark, nowMs = Date.now()): Promise<AccountState | null> {
  let hit = known.get(userId);
  if (!hit || hit.until <= nowMs) {
    const prisma = await db();
    const row = await prisma.user.findUnique({
      where: { id: userId },
      select: {
        lockedAt: true,
        sessionsRevokedAt: true,
        revokedSessions: { where: { expiresAt: { gt: new Date(nowMs) } }, select: { sid: true } },
      },
    });
    if (!row) {
      known.delete(userId);
      return null;
    }
    hit = {
      state: row.lockedAt ? "locked" : "active",
      revokedAt: row.sessionsRevokedAt?.getTime() ?? null,
      revokedSessions: new Set(row.revokedSessions.map((r) => r.sid)),
      until: nowMs + STATE_TTL_MS,
    };
    if (known.size >= MAX_ENTRIES) known.delete(known.keys().next().value as string);
    known.set(userId, hit);
  }
  if (hit.revokedAt !== null && typeof session?.signedInAt === "number" && session.signedInAt <= hit.revokedAt) return null;
  if (session?.sessionId && hit.revokedSessions.has(session.sessionId)) return null;
  return hit.state;
}

/** Called when a user is deleted, locked, unlocked or their sessions revoked: this process sees it on the next request. */
export function forgetUser(userId: string): void {
  known.delete(userId);
}
