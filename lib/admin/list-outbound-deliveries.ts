import type { z } from "zod";
import { db } from "@/lib/db/client";
import { AppError, notFound, requireUuids } from "@/lib/errors";
import type { Operator } from "@/lib/auth/resolve-operator";
import { deliverSoon } from "@/lib/outbound/deliver-outbound";
import { after, decodeCursor, page } from "./cursor";
import { recordAdminAction } from "./record-admin-action";
import type { outboundRow } from "./schemas";

type Row = z.infer<typeof outboundRow>;

const include = { event: { select: { accountId: true, type: true } }, endpoint: { select: { url: true, enabled: true } } } as const;

function toRow(d: {
  id: string;
  status: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: Date;
  createdAt: Date;
  emailTo: string | null;
  event: { accountId: string; type: string };
  endpoint: { url: string } | null;
}): Row {
  return {
    id: d.id,
    accountId: d.event.accountId,
    type: d.event.type,
    target: d.endpoint?.url ?? `email:${d.emailTo ?? ""}`,
    status: d.status,
    attempts: d.attempts,
    lastStatus: d.lastStatus,
    lastError: d.lastError,
    nextAttemptAt: d.status === "pending" ? d.nextAttemptAt.toISOString() : null,
    createdAt: d.createdAt.toISOString(),
  };
}

/** Outbound webhook deliveries and alert emails, newest first, by status or account (the console's delivery log). */
export async function listOutboundDeliveries(input: { status?: string; accountId?: string; cursor?: string; limit: number }) {
  const prisma = await db();
  const rows = await prisma.outboundDelivery.findMany({
    where: {
      AND: [
        input.status ? { status: input.status } : {},
        input.accountId ? { event: { accountId: input.accountId } } : {},
        after("createdAt", decodeCursor(input.cursor)),
      ],
    },
    include,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
  });
  const { items, nextCursor } = page(rows, input.limit, (r) => r.createdAt);
  return { deliveries: items.map(toRow), nextCursor };
}

/** An operator sends a delivery again (its endpoint enabled), audited in the same transaction. */
export async function replayOutboundDelivery(input: { operator: Operator; id: string; reason: string; requestId: string | null }) {
  requireUuids("Delivery", input.id);
  const prisma = await db();
  const delivery = await prisma.$transaction(async (tx) => {
    const found = await tx.outboundDelivery.findUnique({ where: { id: input.id }, include });
    if (!found) throw notFound("Delivery");
    if (found.endpoint && !found.endpoint.enabled) throw new AppError("conflict", "The endpoint is disabled: its owner enables it first");
    const updated = await tx.outboundDelivery.update({
      where: { id: input.id },
      data: { status: "pending", nextAttemptAt: new Date() },
      include,
    });
    await recordAdminAction(tx, {
      operator: input.operator,
      action: "outbound.replay",
      targetType: "outbound",
      targetId: input.id,
      reason: input.reason,
      requestId: input.requestId,
      details: { type: found.event.type, statusBefore: found.status, accountId: found.event.accountId },
    });
    return updated;
  });
  deliverSoon();
  return { delivery: toRow(delivery) };
}
