import { randomUUID } from "node:crypto";
import { db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { metrics } from "@/lib/metrics";
import { accountRecipients } from "@/lib/outbound/account-recipients";
import { deliverSoon } from "@/lib/outbound/deliver-outbound";
import { emitEvent } from "@/lib/outbound/emit-event";
import type { OutboundEventType } from "@/lib/outbound/event-types";

export interface Firing {
  accountId: string;
  /** allocation:80, key:<id>:100, low, depleted */
  alert: string;
  /** What makes a new firing possible: the allocation cycle, the key's budget window, the last top-up. */
  period: string;
  type: OutboundEventType;
  data: Record<string, unknown>;
  email: boolean;
}

/**
 * Fires an alert once per (account, alert, period): the firing row is unique on that, so however many
 * charges cross the threshold at once, on however many instances, one insert wins; the winner writes
 * the event to the outbox in the same transaction (its webhook deliveries and emails go out after).
 */
export async function fireAlert(f: Firing): Promise<boolean> {
  const prisma = await db();
  const fired = await prisma.$transaction(async (tx) => {
    const id = randomUUID();
    const inserted = await tx.$executeRaw`
      INSERT INTO alert_firings (id, account_id, alert, period, created_at) VALUES (${id}, ${f.accountId}, ${f.alert}, ${f.period}, now())
      ON CONFLICT (account_id, alert, period) DO NOTHING`;
    if (inserted === 0) return false;
    const account = await tx.user.findUnique({ where: { id: f.accountId }, select: { name: true, kind: true } });
    const emailTo = f.email ? await accountRecipients(f.accountId, tx) : [];
    const event = await emitEvent(tx, {
      accountId: f.accountId,
      type: f.type,
      data: { ...f.data, alert: f.alert, ...(account?.kind === "organisation" ? { accountName: account.name } : {}) },
      emailTo,
    });
    await tx.alertFiring.update({ where: { id }, data: { eventId: event.id } });
    return true;
  });
  if (fired) {
    metrics().alertsFired.inc({ kind: f.alert.split(":")[0] });
    log.info("spend alert fired", { accountId: f.accountId, alert: f.alert, period: f.period });
    deliverSoon();
  }
  return fired;
}
