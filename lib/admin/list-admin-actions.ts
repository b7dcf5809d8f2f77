import type { z } from "zod";
import { db } from "@/lib/db/client";
import { after, decodeCursor, page } from "./cursor";
import type { auditListResponse } from "./schemas";

/** The audit log of operator writes, newest first (optionally one action or one target). */
export async function listAdminActions(input: {
  action?: string;
  targetId?: string;
  cursor?: string;
  limit: number;
}): Promise<z.infer<typeof auditListResponse>> {
  const prisma = await db();
  const rows = await prisma.adminAction.findMany({
    where: {
      AND: [
        input.action ? { action: input.action } : {},
        input.targetId ? { targetId: input.targetId } : {},
        after("createdAt", decodeCursor(input.cursor)),
      ],
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
  });
  const { items, nextCursor } = page(rows, input.limit, (r) => r.createdAt);
  return {
    actions: items.map((a) => ({
      id: a.id,
      operatorId: a.operatorId,
      operator: a.operator,
      action: a.action,
      targetType: a.targetType,
      targetId: a.targetId,
      reason: a.reason,
      requestId: a.requestId,
      details: a.details,
      createdAt: a.createdAt.toISOString(),
    })),
    nextCursor,
  };
}
