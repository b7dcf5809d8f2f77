import { isHandledPaymentEvent } from "@/lib/billing/subscriptions/subscription-state";
import { db } from "@/lib/db/client";
import type { User } from "@/lib/generated/prisma/client";
import { log as rootLog, type Logger } from "@/lib/log";
import { finishDelivery } from "../deliveries";
import { PAYMENT_EVENT_HANDLERS } from "./events";
import { eventObjectId, eventTime, toPaymentEvent, type PaymentEvent } from "./payload";
import { resolvePaymentUser } from "./resolve-user";

export interface PaymentWebhookResult {
  received: true;
  type: string;
  duplicate: boolean;
  /** processed | pending | ignored | failed (duplicates: the first delivery's status). */
  status: string;
  result?: string;
}

/** Runs the handler of a claimed delivery and records its outcome; never throws. */
export async function runPaymentDelivery(deliveryRowId: string, event: PaymentEvent, log: Logger): Promise<PaymentWebhookResult> {
  const base = { received: true as const, type: event.name, duplicate: false };
  const finish = async (status: "processed" | "pending" | "ignored" | "failed", note?: string) => {
    try {
      await finishDelivery(deliveryRowId, status, note);
    } catch (error) {
      log.error("payment delivery status not recorded", { deliveryRowId, status, error });
    }
  };
  if (!isHandledPaymentEvent(event.name)) {
    await finish("ignored", `event type ${event.name} is not handled`);
    return { ...base, status: "ignored", result: "event type ignored" };
  }
  try {
    const userId = await resolvePaymentUser(event);
    if (!userId) {
      await finish("pending", "no user with this id or email yet");
      log.info("payment event kept until its user registers", { type: event.name, objectId: eventObjectId(event) });
      return { ...base, status: "pending", result: "kept until the user registers" };
    }
    const outcome = await PAYMENT_EVENT_HANDLERS[event.name]({ event, userId, occurredAt: eventTime(event), log: log.child({ userId }) });
    await finish(outcome.status, outcome.status === "processed" ? undefined : outcome.result);
    log.info("payment event handled", { type: event.name, objectId: eventObjectId(event), status: outcome.status, result: outcome.result });
    if (outcome.createdSubscription) await applyPendingPaymentDeliveries({ objectId: outcome.createdSubscription }, log);
    return { ...base, status: outcome.status, result: outcome.result };
  } catch (error) {
    log.error("payment event handler failed", { type: event.name, objectId: eventObjectId(event), error });
    await finish("failed", (error as Error).message);
    return { ...base, status: "failed", result: "handler failed; logged" };
  }
}

/**
 * Applies kept (pending) deliveries, oldest first: those of a user who just registered with the
 * buyer's email (applyDeliveriesKeptForUser), or those waiting for a subscription
 * record that now exists. Each is claimed by a conditional update, so two callers never apply one twice.
 */
export async function applyPendingPaymentDeliveries(
  which: { email?: string | null; objectId?: string | null },
  log: Logger = rootLog,
): Promise<{ applied: number }> {
  const or = [
    ...(which.email ? [{ userEmail: which.email.trim().toLowerCase() }] : []),
    ...(which.objectId ? [{ objectId: which.objectId }] : []),
  ];
  if (or.length === 0) return { applied: 0 };
  const prisma = await db();
  const rows = await prisma.webhookDelivery.findMany({
    where: { source: "payment", status: "pending", OR: or },
    orderBy: [{ occurredAt: "asc" }, { receivedAt: "asc" }],
    take: 500,
  });
  let applied = 0;
  for (const row of rows) {
    const claim = await prisma.webhookDelivery.updateMany({ where: { id: row.id, status: "pending" }, data: { status: "received" } });
    if (claim.count !== 1) continue;
    let event: PaymentEvent;
    try {
      event = toPaymentEvent(row.payload);
    } catch (error) {
      await finishDelivery(row.id, "failed", (error as Error).message);
      continue;
    }
    const result = await runPaymentDelivery(row.id, event, log);
    if (result.status === "processed") applied++;
  }
  return { applied };
}

/**
 * Called by whoever creates a user (sign-in, the identity webhook): the payment deliveries kept for
 * their email (a registration-first checkout paid before the account existed) apply now. A failure is
 * logged and never fails the sign-in: the deliveries stay pending, and a later sign-in or an
 * operator's replay applies them.
 */
export async function applyDeliveriesKeptForUser(user: Pick<User, "id" | "email">, log: Logger = rootLog): Promise<void> {
  if (!user.email) return;
  try {
    const { applied } = await applyPendingPaymentDeliveries({ email: user.email }, log);
    if (applied > 0) log.info("payment deliveries kept for a new user applied", { userId: user.id, applied });
  } catch (error) {
    log.error("payment deliveries kept for a new user not applied", { userId: user.id, error });
  }
}
