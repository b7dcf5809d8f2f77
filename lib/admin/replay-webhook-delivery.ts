import type { z } from "zod";
import { db } from "@/lib/db/client";
import { AppError, notFound, requireUuids } from "@/lib/errors";
import type { Logger } from "@/lib/log";
import { runStoredDelivery } from "@/lib/webhooks/run-stored-delivery";
import { toDeliveryRow } from "./delivery-row";
import { recordAdminAction } from "./record-admin-action";
import type { Operator } from "@/lib/auth/resolve-operator";
import type { replayResponse } from "./schemas";

/**
 * Runs a stored delivery again through the same processing its webhook route uses, after its cause
 * was fixed (the user now exists, the catalog now has the variant, ...). The delivery is claimed
 * (status "received") in the transaction that writes the audit row, so two replays never run one
 * delivery at once; one that is being processed right now answers 409. Effects stay idempotent: a
 * processed order grants nothing new, an older subscription event keeps the newer state.
 */
export async function replayWebhookDelivery(input: {
  operator: Operator;
  id: string;
  reason: string;
  requestId: string | null;
  log: Logger;
}): Promise<z.infer<typeof replayResponse>> {
  requireUuids("Webhook delivery", input.id);
  const prisma = await db();
  const { delivery, auditId, statusBefore } = await prisma.$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<{ status: string }[]>`SELECT status FROM webhook_deliveries WHERE id = ${input.id}::text FOR UPDATE`;
    if (!row) throw notFound("Webhook delivery");
    if (row.status === "received") throw new AppError("conflict", "This delivery is being processed right now; look again in a moment");
    const delivery = await tx.webhookDelivery.update({ where: { id: input.id }, data: { status: "received", error: null } });
    const auditId = await recordAdminAction(tx, {
      operator: input.operator,
      action: "webhook.replay",
      targetType: "webhook",
      targetId: input.id,
      reason: input.reason,
      requestId: input.requestId,
      details: { source: delivery.source, eventType: delivery.eventType, statusBefore: row.status },
    });
    return { delivery, auditId, statusBefore: row.status };
  });
  const outcome = await runStoredDelivery(delivery, input.log);
  const after = await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: input.id } });
  await prisma.adminAction.update({
    where: { id: auditId },
    data: {
      details: {
        source: delivery.source,
        eventType: delivery.eventType,
        statusBefore,
        outcome: after.status,
        result: outcome.result.slice(0, 500),
      },
    },
  });
  return { status: after.status, result: outcome.result, delivery: toDeliveryRow(after) };
}
