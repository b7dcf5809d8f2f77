import { recordOrganisationEvent } from "@/lib/audit/record-organisation-event";
import { keyModelsAvailable } from "@/lib/ai/providers/offered-models";
import { db } from "@/lib/db/client";
import type { ApiKey, Prisma } from "@/lib/generated/prisma/client";
import { AppError, notFound, requireUuids } from "@/lib/errors";
import { log } from "@/lib/log";
import { deliverSoon } from "@/lib/outbound/deliver-outbound";
import { emitEvent } from "@/lib/outbound/emit-event";
import { forgetApiKey } from "./authenticate-api-key";
import { hashKeySecret, keyDisplay, newKeySecret } from "./key-secret";
import { keySpend } from "./key-spend";
import { toKeyView } from "./key-view";
import type { ApiKeyView, CreateKeyBody, UpdateKeyBody } from "./schemas";

/**
 * Whose keys a request manages: an account's (a person's, or an organisation's), all of them (the
 * person, an organisation's owner and admins) or only those `createdBy` made (an organisation's
 * member). An organisation's new key records its maker: its calls count against their caps.
 */
export interface KeyScope {
  accountId: string;
  createdBy: string | null;
  onlyOwn: boolean;
  /** Acting for an organisation (its keys may be service keys). */
  organisation?: boolean;
}

/** The key scope of an acting account (lib/organisations/roles.ts ActingAccount). */
export function keyScopeOf(account: { id: string; kind: string; role: string; memberId: string | null }): KeyScope {
  return {
    accountId: account.id,
    createdBy: account.memberId,
    onlyOwn: account.kind === "organisation" && account.role === "member",
    organisation: account.kind === "organisation",
  };
}

const scoped = (scope: KeyScope | string) => {
  const s = typeof scope === "string" ? { accountId: scope, createdBy: null, onlyOwn: false } : scope;
  return { s, where: { userId: s.accountId, ...(s.onlyOwn ? { createdBy: s.createdBy } : {}) } };
};

/** Keys an account (a person, or an organisation) may hold at once (revoked ones do not count). */
export const MAX_ACTIVE_KEYS = 50;
/**
 * An organisation's keys by its plain members: each member may hold MEMBER_KEYS at once, and all of
 * them together leave KEYS_KEPT_FOR_ADMINS of the account's limit to its owner and admins, so no member
 * can lock the people who run the organisation out of making keys.
 */
export const ORGANISATION_KEY_LIMITS = { perMember: 10, keptForAdmins: 10 };

function invalid(param: string, message: string): AppError {
  return new AppError("validation_failed", `Invalid body: ${param}: ${message}`, { param });
}

/** The limits of a create or update body, checked: models the user may use, an expiry in the future. */
function limitsData(body: CreateKeyBody | UpdateKeyBody) {
  const data: Record<string, unknown> = {};
  if (body.models !== undefined) {
    const available = new Set(keyModelsAvailable());
    const unknown = body.models.filter((m) => !available.has(m));
    if (unknown.length)
      throw invalid(
        "models",
        `${unknown.map((m) => `"${m}"`).join(", ")} ${unknown.length === 1 ? "is" : "are"} not available; use models of GET /v1/models`,
      );
    data.models = [...new Set(body.models)];
  }
  if (body.kinds !== undefined) data.kinds = [...new Set(body.kinds)];
  if (body.budget !== undefined) {
    data.budgetCredits = body.budget?.credits ?? null;
    data.budgetPeriod = body.budget?.period ?? null;
    // A new budget starts counting afresh.
    data.windowStart = null;
    data.windowSpent = 0;
  }
  if (body.rpm !== undefined) data.rpm = body.rpm;
  if (body.alertThresholds !== undefined) data.alertThresholds = [...new Set(body.alertThresholds)].sort((a, b) => a - b);
  if (body.expiresAt !== undefined) {
    const at = body.expiresAt === null ? null : new Date(body.expiresAt);
    if (at && at <= new Date()) throw invalid("expiresAt", "must be in the future");
    data.expiresAt = at;
  }
  return data;
}

/** Creates a key: the secret is returned this once; only its hash, prefix and last four are stored. */
export async function createApiKey(scope: KeyScope | string, body: CreateKeyBody): Promise<{ key: ApiKeyView; secret: string }> {
  const { s } = scoped(scope);
  const userId = s.accountId;
  const prisma = await db();
  if (body.service && !s.organisation)
    throw invalid("service", "only an organisation's keys are service keys: act as the organisation to create one");
  if (body.service && s.onlyOwn)
    throw new AppError("forbidden", "Only the organisation's owner and admins create service keys", { reason: "role_required" });
  const secret = newKeySecret();
  // Counted and created under the account row's lock: concurrent creations never pass a limit.
  const key = await prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT 1 FROM users WHERE id = ${userId}::text FOR UPDATE`;
    await checkKeyLimits(tx, s);
    const created = await tx.apiKey.create({
      data: {
        userId,
        createdBy: s.createdBy,
        service: body.service === true,
        name: body.name,
        hash: hashKeySecret(secret),
        ...keyDisplay(secret),
        ...limitsData(body),
      },
    });
    // An organisation's key is on its audit log (a person's account has none: nothing is written).
    await recordOrganisationEvent(tx, {
      accountId: userId,
      actorId: s.createdBy,
      action: "key.created",
      targetType: "key",
      targetId: created.id,
      details: { name: created.name, prefix: created.prefix, service: created.service, ...limitsData(body) },
    });
    return created;
  });
  log.info("api key created", { userId, keyId: key.id, ...(s.createdBy ? { memberId: s.createdBy } : {}) });
  return { key: toKeyView(key, 0), secret };
}

/** The key limits a new key of `scope` must stay within (ORGANISATION_KEY_LIMITS for a plain member). */
async function checkKeyLimits(tx: Prisma.TransactionClient, s: KeyScope): Promise<void> {
  const [counts] = await tx.$queryRaw<Array<{ total: bigint; mine: bigint; by_members: bigint }>>`
    SELECT count(*) AS total,
           count(*) FILTER (WHERE k.created_by = ${s.createdBy}::text) AS mine,
           count(*) FILTER (WHERE m.role = 'member') AS by_members
      FROM api_keys k
      LEFT JOIN organisation_members m ON m.organisation_id = k.user_id AND m.user_id = k.created_by
     WHERE k.user_id = ${s.accountId}::text AND k.revoked_at IS NULL`;
  if (Number(counts.total) >= MAX_ACTIVE_KEYS)
    throw new AppError("forbidden", `This account has ${MAX_ACTIVE_KEYS} active keys; revoke one before creating another`, {
      reason: "key_limit",
    });
  if (!s.onlyOwn) return;
  const { perMember, keptForAdmins } = ORGANISATION_KEY_LIMITS;
  if (Number(counts.mine) >= perMember)
    throw new AppError(
      "forbidden",
      `You have ${perMember} active keys in this organisation, the most a member may hold; revoke one before creating another`,
      { reason: "key_limit" },
    );
  if (Number(counts.by_members) >= MAX_ACTIVE_KEYS - keptForAdmins)
    throw new AppError(
      "forbidden",
      `This organisation's members hold ${MAX_ACTIVE_KEYS - keptForAdmins} active keys, the most members may (the last ${keptForAdmins} of its ${MAX_ACTIVE_KEYS} are kept for its owner and admins); ask an admin to revoke unused ones`,
      { reason: "key_limit" },
    );
}

export async function listApiKeys(scope: KeyScope | string): Promise<{ keys: ApiKeyView[] }> {
  const prisma = await db();
  const keys = await prisma.apiKey.findMany({ where: scoped(scope).where, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
  const spent = await keySpend(keys.map((k) => k.id));
  const now = new Date();
  return { keys: keys.map((k) => toKeyView(k, spent.get(k.id) ?? 0, now)) };
}

/** Renames a key or changes its limits (owner only; a revoked key cannot be changed). */
export async function updateApiKey(scope: KeyScope | string, keyId: string, body: UpdateKeyBody): Promise<{ key: ApiKeyView }> {
  requireUuids("API key", keyId);
  const { where } = scoped(scope);
  const prisma = await db();
  const data = { ...(body.name !== undefined ? { name: body.name } : {}), ...limitsData(body) };
  const { count } = await prisma.apiKey.updateMany({ where: { ...where, id: keyId, revokedAt: null }, data });
  if (count === 0) {
    const revoked = await prisma.apiKey.count({ where: { ...where, id: keyId } });
    throw revoked ? new AppError("conflict", "This key is revoked and cannot be changed") : notFound("API key");
  }
  await recordOrganisationEvent(null, {
    accountId: scoped(scope).s.accountId,
    actorId: scoped(scope).s.createdBy,
    action: "key.updated",
    targetType: "key",
    targetId: keyId,
    details: data,
  });
  forgetApiKey(keyId);
  return { key: await viewOf(keyId) };
}

/**
 * Revokes a key for good, the one way keys are revoked (by their owner, or by an operator): it stops
 * working on this instance at once and on every other within the key cache's lifetime
 * (lib/api-keys/authenticate-api-key.ts). `by` is "user" or "operator:<who>". `onRevoked` runs in the
 * revocation's own transaction when it changed something (an operator's audit row commits with it).
 * Revoking a revoked key changes nothing.
 */
export async function revokeApiKey(
  scope: KeyScope | string,
  keyId: string,
  by: string,
  options: { onRevoked?: (tx: Prisma.TransactionClient, key: ApiKey) => Promise<unknown> } = {},
): Promise<{ key: ApiKeyView; changed: boolean }> {
  const { s, where } = scoped(scope);
  const userId = s.accountId;
  requireUuids("API key", userId, keyId);
  const prisma = await db();
  const changed = await prisma.$transaction(async (tx) => {
    const key = await tx.apiKey.findFirst({ where: { ...where, id: keyId } });
    if (!key) throw notFound("API key");
    const { count } = await tx.apiKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: new Date(), revokedBy: by } });
    if (count > 0) {
      await options.onRevoked?.(tx, key);
      await recordOrganisationEvent(tx, {
        accountId: key.userId,
        actorId: by === "user" ? s.createdBy : null,
        action: "key.revoked",
        targetType: "key",
        targetId: key.id,
        details: { name: key.name, by: by === "user" ? "member" : "operator" },
      });
      await emitEvent(tx, {
        accountId: key.userId,
        type: "key.revoked",
        data: { keyId: key.id, name: key.name, by: by === "user" ? "owner" : "operator" },
      });
    }
    return count > 0;
  });
  forgetApiKey(keyId);
  if (changed) deliverSoon();
  if (changed) log.info("api key revoked", { userId, keyId, by: by === "user" ? "user" : "operator" });
  return { key: await viewOf(keyId), changed };
}

async function viewOf(keyId: string): Promise<ApiKeyView> {
  const prisma = await db();
  const key = await prisma.apiKey.findUniqueOrThrow({ where: { id: keyId } });
  return toKeyView(key, (await keySpend([keyId])).get(keyId) ?? 0);
}
