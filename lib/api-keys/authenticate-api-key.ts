import { db } from "@/lib/db/client";
import { hashKeySecret, isKeySecret } from "./key-secret";
import { processState } from "@/lib/process-state";

/** What a request made with an API key may do, as the key says it. */
export interface ApiKeyPrincipal {
  keyId: string;
  /** The key's account: its user, or the organisation it belongs to. */
  userId: string;
  /** An organisation's key: the member who made it (charges count against their caps); null for a person's key or a service key. */
  memberId: string | null;
  /** An organisation's service key: it belongs to the organisation (its rules apply, no member's caps). */
  service: boolean;
  name: string;
  /** Percentages of the budget at which budget.threshold fires. */
  alertThresholds: number[];
  models: string[];
  kinds: string[];
  budgeted: boolean;
  rpm: number | null;
  expiresAt: Date | null;
}

/**
 * Keys by hash, remembered for KEY_TTL_MS per process so a call pays no lookup: a revoked or changed
 * key is forgotten at once here and seen by every other instance within that time (under the 5 s the
 * API promises). A key that does not exist is remembered as such too, so repeated bad keys cost no
 * query (they are also rate-limited per client address by the route wrapper).
 */
const KEY_TTL_MS = 3_000;
const MAX_ENTRIES = 10_000;
// One map per process (lib/process-state.ts: Next bundles route handlers separately; a revocation must reach every copy).
const known = processState("apiKeys", () => new Map<string, { key: (ApiKeyPrincipal & { revoked: boolean }) | null; until: number }>());

export type KeyLookup = { status: "active"; key: ApiKeyPrincipal } | { status: "revoked" | "expired" | "unknown"; key: null };

/** The key of a secret, if it is one of ours and active; else why not. */
export async function authenticateApiKey(secret: string, nowMs = Date.now()): Promise<KeyLookup> {
  const unknown = { status: "unknown", key: null } as const;
  if (!isKeySecret(secret)) return unknown;
  const hash = hashKeySecret(secret);
  let hit = known.get(hash);
  if (!hit || hit.until <= nowMs) {
    const prisma = await db();
    const row = await prisma.apiKey.findUnique({ where: { hash } });
    const key = row
      ? {
          keyId: row.id,
          userId: row.userId,
          memberId: row.service ? null : row.createdBy,
          service: row.service,
          name: row.name,
          alertThresholds: row.alertThresholds,
          models: row.models,
          kinds: row.kinds,
          budgeted: row.budgetCredits !== null,
          rpm: row.rpm,
          expiresAt: row.expiresAt,
          revoked: row.revokedAt !== null,
        }
      : null;
    if (known.size >= MAX_ENTRIES) known.delete(known.keys().next().value as string);
    known.set(hash, (hit = { key, until: nowMs + KEY_TTL_MS }));
  }
  const key = hit.key;
  if (!key) return unknown;
  if (key.revoked) return { status: "revoked", key: null };
  if (key.expiresAt && key.expiresAt.getTime() <= nowMs) return { status: "expired", key: null };
  const { revoked: _revoked, ...principal } = key;
  return { status: "active", key: principal };
}

/** Forgets a key in this process (revoked or changed): the next request reads it again. */
export function forgetApiKey(keyId: string): void {
  for (const [hash, entry] of known) if (entry.key?.keyId === keyId) known.delete(hash);
}
