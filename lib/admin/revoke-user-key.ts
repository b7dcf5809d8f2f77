import { revokeApiKey } from "@/lib/api-keys/manage-api-keys";
import { recordAdminAction } from "./record-admin-action";
import type { Operator } from "@/lib/auth/resolve-operator";

/**
 * An operator revokes a user's API key: the revocation and its audit row commit together; the key
 * stops working here at once and on every other instance within the key cache's 3 seconds.
 * Revoking a revoked key changes nothing and records nothing.
 */
export function revokeUserKey(input: { operator: Operator; userId: string; keyId: string; reason: string; requestId: string | null }) {
  return revokeApiKey(input.userId, input.keyId, `operator:${input.operator.label}`, {
    onRevoked: (tx, key) =>
      recordAdminAction(tx, {
        operator: input.operator,
        action: "user.api_key.revoke",
        targetType: "user",
        targetId: input.userId,
        reason: input.reason,
        requestId: input.requestId,
        details: { keyId: key.id, name: key.name, display: `${key.prefix}…${key.lastFour}` },
      }),
  });
}
