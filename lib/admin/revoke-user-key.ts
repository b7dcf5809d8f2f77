import { forgetApiKey } from "@/lib/api-keys/authenticate-api-key";
import { keySpend } from "@/lib/api-keys/key-spend";
import { toKeyView } from "@/lib/api-keys/key-view";
import { db } from "@/lib/db/client";
import { notFound, requireUuids } from "@/lib/errors";
import { log } from "@/lib/log";
import { recordAdminAction } from "./record-admin-action";
import type { Operator } from "@/lib/auth/resolve-operator";


/**
 * An operator revokes a user's API key: the revocation and its audit row commit together; the key
 * stops working here at once and on every other instance within the key cache's 3 seconds.
 * Revoking a revoked key changes nothing and records nothing.
 */
export async function revokeUserKey(input: { operator: Operator; userId: string; keyId: string; reason: string; requestId: string | null }) {
  requireUuids("API key", input.userId, input.keyId);
  const prisma = await db();
  const result = await prisma.$transaction(async (tx) => {
    const key = await tx.apiKey.findFirst({ where: { id: input.keyId, userId: input.userId } });
    if (!key) throw notFound("API key");
    if (key.revokedAt) return { key, changed: false };
    const revoked = await tx.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date(), revokedBy: `operator:${input.operator.label}` } });
    await recordAdminAction(tx, {
      operator: input.operator,
      action: "user.api_key.revoke",
      targetType: "user",
      targetId: input.userId,
      reason: input.reason,
      requestId: input.requestId,
      details: { keyId: key.id, name: key.name, display: `${key.prefix}…${key.lastFour}` },
    });
    return { key: revoked, changed: true };
  });
  forgetApiKey(input.keyId);
  if (result.changed) log.info("api key revoked", { userId: input.userId, keyId: input.keyId, by: "operator" });
  return { key: toKeyView(result.key, (await keySpend([input.keyId])).get(input.keyId) ?? 0), changed: result.changed };
}
