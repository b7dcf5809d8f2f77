import { recordOrganisationEvent } from "@/lib/audit/record-organisation-event";
import { adjustCredits, countCreditsGranted, type AdjustmentResult, type CreditBucket } from "@/lib/credits";
import { db } from "@/lib/db/client";
import { requireUuids } from "@/lib/errors";
import { recordAdminAction } from "./record-admin-action";
import type { Operator } from "@/lib/auth/resolve-operator";

export interface AdjustUserCreditsInput {
  operator: Operator;
  userId: string;
  amount: number;
  bucket: CreditBucket;
  reason: string;
  idempotencyKey: string;
  requestId: string | null;
}

/**
 * An operator's correction of a user's credits: the `adjustment` ledger rows (with the operator and
 * the reason in their metadata), the balance change and the audit row commit together or not at all.
 * Never below zero; the same idempotency key applies once (a repeat answers applied: false).
 */
export async function adjustUserCredits(input: AdjustUserCreditsInput): Promise<AdjustmentResult> {
  requireUuids("User", input.userId);
  const prisma = await db();
  const outcome = await prisma.$transaction(async (tx) => {
    const result = await adjustCredits(tx, {
      userId: input.userId,
      amount: input.amount,
      bucket: input.bucket,
      idempotencyKey: input.idempotencyKey,
      metadata: { operatorId: input.operator.id, operator: input.operator.label, reason: input.reason, requestId: input.requestId },
    });
    if (result.applied) {
      await recordAdminAction(tx, {
        operator: input.operator,
        action: "credits.adjust",
        targetType:
          (await tx.user.findUnique({ where: { id: input.userId }, select: { kind: true } }))?.kind === "organisation"
            ? "organisation"
            : "user",
        targetId: input.userId,
        reason: input.reason,
        requestId: input.requestId,
        details: {
          amount: input.amount,
          bucket: input.bucket,
          idempotencyKey: input.idempotencyKey,
          operationId: result.operationId,
          balances: result.balances,
        },
      });
      await recordOrganisationEvent(tx, {
        accountId: input.userId,
        actorId: null,
        action: "wallet.adjusted",
        targetType: "wallet",
        targetId: result.operationId,
        details: { by: "operator", amount: input.amount, bucket: input.bucket, reason: input.reason },
      });
    }
    return result;
  });
  if (outcome.applied && input.amount > 0) countCreditsGranted("adjustment", input.amount);
  return outcome;
}
