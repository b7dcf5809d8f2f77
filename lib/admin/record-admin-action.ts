import type { Prisma } from "@/lib/generated/prisma/client";
import type { Operator } from "@/lib/auth/resolve-operator";

export type AdminActionName =
  | "credits.adjust"
  | "user.lock"
  | "user.unlock"
  | "user.identity.unlink"
  | "user.api_key.revoke"
  | "webhook.replay"
  | "cron.run"
  | "outbound.replay";

export interface AdminActionInput {
  operator: Operator;
  action: AdminActionName;
  targetType: "user" | "organisation" | "webhook" | "cron" | "outbound";
  targetId: string;
  reason: string;
  requestId: string | null;
  details?: Record<string, unknown>;
}

/** Writes the audit row of an operator's write, in the transaction of the change it describes. */
export async function recordAdminAction(tx: Prisma.TransactionClient, input: AdminActionInput): Promise<string> {
  const row = await tx.adminAction.create({
    data: {
      operatorId: input.operator.id,
      operator: input.operator.label,
      action: input.action,
      targetType: input.targetType,
      targetId: input.targetId,
      reason: input.reason,
      requestId: input.requestId,
      details: (input.details ?? undefined) as never,
    },
    select: { id: true },
  });
  return row.id;
}
